"`vf-eval twentyq-env`: verifiers imports the module its id names and takes the environment's classes from `__all__` (twentyq.verifiers_env)."
from twentyq.verifiers_env import TwentyQConfig, TwentyQData, TwentyQEnv, TwentyQEnvConfig, TwentyQHarness, TwentyQTask, TwentyQTaskConfig, TwentyQTaskset
__all__ = ["TwentyQConfig", "TwentyQData", "TwentyQEnv", "TwentyQEnvConfig", "TwentyQHarness", "TwentyQTask", "TwentyQTaskConfig", "TwentyQTaskset"]
