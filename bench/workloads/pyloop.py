"""A CPU-bound pure-Python loop of fixed work (bench/python.sh): recursion and arithmetic,
a stack ~20 Python frames deep; prints the CPU seconds it took."""
import sys
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work(rounds):
    x = 0
    for _ in range(rounds):
        x += fib(18)
        for i in range(2000):
            x ^= i * i
    return x


# CPU time (user + system, the sampler's interrupts included): on a shared machine wall
# time mostly measures the other load.
t0 = time.process_time()
work(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
print("seconds=%.4f" % (time.process_time() - t0))
