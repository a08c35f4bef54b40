"""Every seat an agent: PettingZoo's AEC loop and the parallel API."""

from blackjack_env.envs.multiagent import env as aec_env
from blackjack_env.envs.multiagent import parallel_env

table = aec_env(num_seats=3, others={2: "basic"})  # seat 2 is played by basic strategy
table.reset(seed=0)
for agent in table.agent_iter():
    obs, reward, termination, truncation, info = table.last()
    if termination or truncation:
        action = None
    else:
        # the observation carries the mask (PettingZoo's action-masking convention)
        action = table.action_space(agent).sample(mask=obs["action_mask"])
    table.step(action)
print("agents:", table.possible_agents)
table.close()

par = parallel_env(num_seats=3, rounds=2, obs_mode="vector")
observations, infos = par.reset(seed=1)
while par.agents:
    actions = {a: par.action_space(a).sample(mask=observations[a]["action_mask"])
               for a in par.agents}
    observations, rewards, terminations, truncations, infos = par.step(actions)
print("parallel env done; state shape", par.state().shape)
par.close()
