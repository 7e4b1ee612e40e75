"""Agents that run on their own: triggers (`every:`, `cron:`, `watch:` in agent files, and the
`schedules` list in settings), one run of a trigger, the scheduler that fires them, and the run
log's records.

Core: never imports Textual, the door or a front end. `models` is pure data, shared by the file
formats (`agent_files`), the stores (`store.run_log`, `store.pg.run_log`) and the front ends.
"""
