"""Drives Marc Brooker's retry strategies (mbrooker/simulator_example, retry_sim/retry_strategy.py)
through a fixed sequence of attempt outcomes and writes what they decided, for brooker_test.go.

Usage, with his retry_strategy.py on the path (it is not copied here):

    PYTHONPATH=path/to/simulator_example/retry_sim python3 brooker_golden.py > brooker_golden.txt

Each request runs as his Call does: start() when the request starts, then, after each failed
attempt, should_retry() decides whether another attempt is sent. Outcomes come from
random.Random(2022) at a failure rate that changes in phases. One line per request:

    <policy> <request> <outcomes sent, F or S> <state after the request, as float64 bits>

where the state is the adaptive bucket, or the breaker's calls and failures.
"""
import random
import struct

from retry_strategy import AdaptiveRetryFactory, CircuitBreakerRetryFactory, NRetriesFactory

PHASES = [(100, 0.0), (200, 0.05), (100, 0.5), (50, 1.0), (1400, 0.0), (200, 0.3), (100, 0.9), (100, 0.1)]


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def run(name, strategy, state):
    rng = random.Random(2022)
    i = 0
    for n, x in PHASES:
        for _ in range(n):
            call = strategy.new_call()
            call.start()
            sent = ""
            while True:
                failed = rng.random() < x
                sent += "F" if failed else "S"
                if not failed or not call.should_retry():
                    break
            print(name, i, sent, " ".join(str(bits(v)) for v in state(strategy)))
            i += 1


run("adaptive", AdaptiveRetryFactory(0.1, 5).make(), lambda s: [s.bucket])
run("breaker", CircuitBreakerRetryFactory(NRetriesFactory(3), 0.1).make(), lambda s: [s.calls, s.failures])
