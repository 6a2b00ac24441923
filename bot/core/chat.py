"""Ordinary things said in a channel: no record's regex may match any of them (pure).

A regex that matches chat would answer chat. The teach modal refuses such a regex for a team
record (bot/service/teach.py), and `errfix lint` reports it for any record (bot/store/overlap.py).
Written for errfix, not taken from any data set: greetings, thanks, questions, status updates and
talk *about* errors that quotes none, in English and Chinese, short and long.
"""

from __future__ import annotations

ORDINARY_CHAT = (
    # talk around a paste
    "thanks, that worked!",
    "did you try restarting it?",
    "can you paste the full traceback please",
    "I think the error is in the config file",
    "the build failed again, looking into it",
    "error handling is done in the middleware",
    "no error on my machine, works for me",
    "we should add a test for this case",
    "see the logs in the dashboard for details",
    "merged, deploying to staging now",
    "it fails when the file is not found, expected",
    "the tests are green now",
    "who owns the payments service?",
    "lunch at 12?",
    "ok",
    # greetings, thanks, plans
    "good morning everyone",
    "hi all 👋",
    "hey, quick question when you have a minute",
    "thanks!",
    "thank you so much, you saved my day",
    "np, happy to help",
    "can someone review my PR?",
    "PR is up, feedback welcome",
    "the build is green again",
    "lunch?",
    "I'll deploy after standup",
    "standup in 5 minutes",
    "I'm out tomorrow, back on Monday",
    "let's sync after the meeting",
    "sounds good to me",
    "+1",
    "LGTM, ship it",
    "is the staging server down or is it just me?",
    "restarted the pod and it's fine now",
    "I upgraded the python version on my laptop yesterday",
    "the release notes are in the wiki",
    "please update the README when you get a chance",
    "how long does the CI pipeline usually take?",
    "does anyone know how to install this on windows?",
    "the GPU machine is free now if you need it",
    "I'm rebasing on main, give me ten minutes",
    "I pushed a fix, can you pull and try again?",
    "we hit the rate limit on the API last week, now it's fine",
    "coffee anyone?",
    "happy friday!",
    # 中文
    "大家早上好",
    "谢谢！",
    "好的，收到",
    "辛苦了",
    "有人能帮我看一下这个PR吗？",
    "构建又通过了",
    "午饭吃什么？",
    "站会之后我来部署",
    "我明天请假",
    "这个问题解决了，谢谢大家",
    "重启之后就好了",
    "文档在wiki上",
)
