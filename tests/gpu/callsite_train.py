"""Call-site GPU test (tests/gpu/callsite_gpu.sh): a small training loop with
loss.item() every step (the line is marked ITEM_LINE), then syncs made with
the GIL held (ctypes.PyDLL keeps it) at the line marked GIL_LINE.
The 400 timed steps run inside the NVTX range "train", after 20 warm-up
steps: the test reads the sites with --range train. Over the whole run,
one-off blocking calls at start-up outweigh the steps' syncs, and rightly
come first there: on the H200 (2026-12-04) the model's .cuda() upload
blocked 0.1-12 ms, one cudaFree of the allocator 10.6 ms, while each
loss.item() idles the GPU only for the few microseconds its sync takes to
return (the rest of the step's gap is the host's own code)."""
import ctypes
import torch


def train_one_epoch(model, opt, x, y, steps):
    total = 0.0
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item()  # ITEM_LINE
    return total


def sync_holding_gil(n):
    rt = ctypes.PyDLL("libcudart.so.13")  # PyDLL: the GIL stays held
    for _ in range(n):
        rt.cudaDeviceSynchronize()  # GIL_LINE


def main():
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(512, 512, device="cuda") for _ in range(4)])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randn(256, 512, device="cuda")
    train_one_epoch(model, opt, x, y, 20)  # warm-up: allocator, cuBLAS
    torch.cuda.nvtx.range_push("train")
    train_one_epoch(model, opt, x, y, 400)
    torch.cuda.nvtx.range_pop()
    try:
        sync_holding_gil(50)
    except OSError as e:
        print("callsite_train: no libcudart.so.13 for PyDLL:", e)


if __name__ == "__main__":
    main()
