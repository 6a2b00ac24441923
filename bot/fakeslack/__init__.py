"""A fake Slack as strict as Slack, for tests and `errfix demo`.

web_api       the Web API, response_url, file downloads and Socket Mode on one aiohttp server
blocks_check  Block Kit validation with Slack's limits (what `invalid_blocks` refuses)
events        the events driver: people's actions sent to the app, signed, every ack timed
thread        FakeSlack on a thread of its own, for synchronous callers
"""
