"""Call-site GPU test (tests/gpu/callsite_gpu.sh): a small training loop with
loss.item() every step (the line is marked ITEM_LINE), then syncs made with
the GIL held (ctypes.PyDLL keeps it) at the line marked GIL_LINE."""
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
    model = torch.nn.Sequential(*[torch.nn.Linear(512, 512) for _ in range(4)]).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randn(256, 512, device="cuda")
    train_one_epoch(model, opt, x, y, 200)
    try:
        sync_holding_gil(50)
    except OSError as e:
        print("callsite_train: no libcudart.so.13 for PyDLL:", e)


if __name__ == "__main__":
    main()
