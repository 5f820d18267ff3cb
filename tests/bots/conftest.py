# The scripts here are bots run as subprocesses, not test modules: never import them.
collect_ignore_glob = ["*_bot.py", "botlib.py"]
