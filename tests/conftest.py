import os
os.environ["HF_HUB_OFFLINE"] = "1"   # tests never reach a model hub, whatever the environment says
