"""Display numbers are reserved exclusively, across processes, and stale reservations are reclaimed."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest

from conformance.harness.desktops.displays import NoFreeDisplayError, lock_path, reserve_display

# A range no real desktop in the kit uses, so these tests never fight a running suite.
FIRST, LAST = 950, 989


def test_two_reservations_get_different_numbers_and_release_removes_the_lock() -> None:
    first = reserve_display(FIRST, LAST)
    second = reserve_display(FIRST, LAST)
    try:
        assert first.number != second.number
        assert int(lock_path(first.number).read_text()) == os.getpid()
    finally:
        first.release()
        second.release()
    assert not lock_path(first.number).exists()
    assert not lock_path(second.number).exists()


def test_a_lock_left_by_a_dead_process_is_reclaimed() -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale_pid = int(dead.stdout)
    path = lock_path(LAST)
    path.write_text(f"{stale_pid:10d}\n")
    try:
        reservation = reserve_display(LAST, LAST)
        assert reservation.number == LAST
        assert int(path.read_text()) == os.getpid()
        reservation.release()
    finally:
        path.unlink(missing_ok=True)


def test_a_live_lock_is_respected() -> None:
    path = lock_path(LAST)
    path.write_text(f"{os.getppid():10d}\n")  # our parent is alive
    try:
        with pytest.raises(NoFreeDisplayError):
            reserve_display(LAST, LAST)
    finally:
        path.unlink(missing_ok=True)


def _reserve_and_report(queue: multiprocessing.Queue[int], barrier: multiprocessing.synchronize.Barrier) -> None:
    barrier.wait()
    reservation = reserve_display(FIRST, LAST)
    queue.put(reservation.number)
    barrier.wait()  # hold the reservation until every process has one
    reservation.release()


def test_parallel_processes_never_share_a_display() -> None:
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[int] = context.Queue()
    barrier = context.Barrier(6)
    workers = [context.Process(target=_reserve_and_report, args=(queue, barrier)) for _ in range(6)]
    for worker in workers:
        worker.start()
    numbers = [queue.get(timeout=20) for _ in workers]
    for worker in workers:
        worker.join(timeout=20)
    assert len(set(numbers)) == len(numbers)
    assert all(not lock_path(number).exists() for number in numbers)
