"""Behaviour fingerprints of the envs and the analysis, for refactors that must change nothing.

Usage::

    BLACKJACK_ENV_PURE=1 python scripts/fingerprint_envs.py --out before.json
    BLACKJACK_ENV_PURE=1 python scripts/fingerprint_envs.py --compare before.json
    python scripts/fingerprint_envs.py --only single vector --seeds 1
    python scripts/fingerprint_envs.py --help        # every option

``--compare`` exits 1 and names each group whose hash differs. The work is done by
:mod:`blackjack_env.fingerprint` (also ``python -m blackjack_env.fingerprint``).
"""

from _launch import launch_module

if __name__ == "__main__":
    launch_module("blackjack_env.fingerprint", "fingerprint_envs.py")
