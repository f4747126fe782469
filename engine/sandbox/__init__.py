"""Uploaded bots in an OS sandbox (bubblewrap): their code, their launch and their transport."""

from engine.sandbox.bot import SANDBOX_TIME_CONTROL, SandboxedBot
from engine.sandbox.code import BadBotCode, BotCode, bot_code, install
from engine.sandbox.launch import SandboxLimits, SandboxUnavailable, check_sandbox

__all__ = [
    "SANDBOX_TIME_CONTROL",
    "BadBotCode",
    "BotCode",
    "SandboxLimits",
    "SandboxUnavailable",
    "SandboxedBot",
    "bot_code",
    "check_sandbox",
    "install",
]
