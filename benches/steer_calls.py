"""The Python function calls one run makes on its own thread, counted by
cProfile: unlike its time, a count the machine's load does not move, so
the steering hook's share of a run shows with no spread at all (the
benches/steer_*.py scripts print it beside their timings)."""

import cProfile
import pstats


def calls(profile: cProfile.Profile) -> int:
    """The function calls `profile` saw."""
    return sum(stats[1] for stats in pstats.Stats(profile).stats.values())


def counted(run) -> int:
    """The function calls of `run()`."""
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    return calls(profile)


async def acounted(run) -> int:
    """The function calls of `await run()` on this thread (the event loop's)."""
    profile = cProfile.Profile()
    profile.enable()
    await run()
    profile.disable()
    return calls(profile)
