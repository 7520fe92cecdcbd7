"""Call-site GPU test: a thread launches CUDA work and syncs while the main
thread runs Python; torch releases the GIL in its blocking calls, so before
CPython 3.9 these call sites have native frames only (3.9 to 3.13: Python
frames, read without the GIL). Must record and not crash."""
import threading
import torch


def worker(n):
    a = torch.randn(1024, 1024, device="cuda")
    for _ in range(n):
        a = torch.relu(a @ a) * 1e-3
        torch.cuda.synchronize()  # THREAD_SYNC_LINE


def main():
    t = threading.Thread(target=worker, args=(200,))
    t.start()
    s = 0
    while t.is_alive():
        s += sum(range(1000))  # the main thread holds the GIL meanwhile
    t.join()
    print("callsite_threads: done", s > 0)


if __name__ == "__main__":
    main()
