"""blackjack_env: a casino blackjack table as a reinforcement-learning testbed.

Importing the package registers the Gymnasium environments (see :data:`ENV_IDS`)::

    import gymnasium as gym
    import blackjack_env

    gym.register_envs(blackjack_env)  # a no-op that tells linters the import is used
    env = gym.make("blackjack_env/Blackjack-v0")

``gym.make("blackjack_env:blackjack_env/Blackjack-v0")`` imports the package itself.
"""

import gymnasium

# First: decides whether the mypyc-compiled modules or their sources are imported.
from blackjack_env._native import compiled_modules
from blackjack_env.engine import (
    Action,
    Card,
    Hand,
    Outcome,
    Phase,
    Rules,
    Shoe,
    Table,
    list_presets,
    preset,
)

__version__ = "0.1.0"

#: Every registered id, with the keyword arguments it fixes.
ENV_IDS: dict[str, dict[str, object]] = {
    # The full casino game: Vegas Strip rules, one seat, multidiscrete observations
    # (ints: a tool that feeds them to a network unchanged, such as CleanRL's dqn.py,
    # fails with a Long-versus-Float error; it wants BlackjackVector-v0. Tianshou wants
    # info_cards=False).
    "blackjack_env/Blackjack-v0": {},
    # The same game with the flat float32 ``Box`` observation ("vector"): for tools that
    # take only an id (CleanRL's --env-id, RL Zoo) and for networks that want floats.
    "blackjack_env/BlackjackVector-v0": {"obs_mode": "vector"},
    # Gymnasium's Blackjack-v1 (sab=True) reproduced: stick/hit, tuple observations.
    "blackjack_env/BlackjackSuttonBarto-v0": {"rules": "sutton-barto", "obs_mode": "tuple"},
    # A card-counting session: bet step before each round, 100 rounds; the shoe carries
    # over between rounds and is reshuffled at the cut card (more than once a session).
    "blackjack_env/BlackjackCounting-v0": {
        "obs_mode": "vector",
        "bet_sizes": (1, 2, 4, 8),
        "rounds_per_episode": 100,
    },
}


#: The ids that ``gym.make_vec`` builds as the native batched env (numpy, thousands of
#: tables per step); the others get Gymnasium's ``SyncVectorEnv`` of the single env.
BATCHED_IDS = (
    "blackjack_env/Blackjack-v0",
    "blackjack_env/BlackjackVector-v0",
    "blackjack_env/BlackjackSuttonBarto-v0",
    "blackjack_env/BlackjackCounting-v0",
)


def _register() -> None:
    for env_id, kwargs in ENV_IDS.items():
        if env_id in gymnasium.registry:  # importing twice (or reloading) is harmless
            continue
        extra = {}
        if env_id in BATCHED_IDS:
            extra["vector_entry_point"] = "blackjack_env.envs.vector:BlackjackVectorEnv"
        gymnasium.register(
            id=env_id,
            entry_point="blackjack_env.envs.single:BlackjackEnv",
            kwargs=dict(kwargs),
            **extra,
        )


_register()

__all__ = [
    "ENV_IDS",
    "Action",
    "Card",
    "Hand",
    "Outcome",
    "Phase",
    "Rules",
    "Shoe",
    "Table",
    "__version__",
    "compiled_modules",
    "list_presets",
    "preset",
]
