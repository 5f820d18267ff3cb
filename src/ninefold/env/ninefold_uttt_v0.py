"""``ninefold_uttt_v0``, named as PettingZoo names its environments: `env` and `raw_env`.

>>> from ninefold.env import ninefold_uttt_v0
>>> ninefold_uttt_v0.raw_env().metadata["name"]
'ninefold_uttt_v0'
"""

from ninefold.env.aec import env, raw_env

__all__ = ["env", "raw_env"]
