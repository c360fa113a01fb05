"""A CPU-bound pure-Python loop of fixed work (bench/python.sh): recursion and arithmetic,
a stack ~20 Python frames deep."""
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


t0 = time.perf_counter()
work(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
print("seconds=%.4f" % (time.perf_counter() - t0))
