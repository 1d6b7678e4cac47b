"""Windows MPIO's own settings, as PowerShell prints them: `Get-MPIOSetting` (a `Name : Value`
list: PathVerificationState, PathVerificationPeriod, PDORemovePeriod, RetryCount, RetryInterval,
UseCustomPathRecoveryTime, CustomPathRecoveryTime, DiskTimeoutValue) and
`Get-MSDSMGlobalDefaultLoadBalancePolicy` (one word: the MSDSM's default policy for disks that
have none of their own, `None` when it was never set). `mpclaim.py` reads the same lines when
they share a file with `mpclaim` output."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pathlab.api import ScenarioError
from pathlab.readers import pasted
from pathlab.readers._whole import is_whole

#: Get-MPIOSetting's names (Microsoft's MPIO module reference, Windows Server 2012 to 2025).
KEYS = ("PathVerificationState", "PathVerificationPeriod", "PDORemovePeriod", "RetryCount", "RetryInterval",
        "UseCustomPathRecoveryTime", "CustomPathRecoveryTime", "DiskTimeoutValue")
#: Set-MSDSMGlobalDefaultLoadBalancePolicy's values, and `None`.
DEFAULT_POLICIES = ("None", "FOO", "RR", "LQD", "LB")
DEFAULT_COMMAND = re.compile(r"^Get-MSDSMGlobalDefaultLoadBalancePolicy\b", re.I)
_SETTING = re.compile(r"^(\w+)\s*:\s*(\S.*?)?\s*$")


@dataclass
class Settings:
    #: Each Get-MPIOSetting value as printed, with its line.
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Get-MSDSMGlobalDefaultLoadBalancePolicy's word and line.
    default_policy: tuple[str, int] | None = None

    def integer(self, name: str, key: str) -> tuple[int, int] | None:
        """A value that is a number of seconds or times, with its line; refused when it is not."""
        if key not in self.values:
            return None
        value, line = self.values[key]
        if not is_whole(value):
            raise ScenarioError(name, f"line {line}", f"{key} : {value[:20]}: expected a whole number")
        return int(value), line


def setting_line(name: str, line: pasted.Line, settings: Settings) -> bool:
    """Whether `line` is a `Get-MPIOSetting` line, kept in `settings`; a known name without a
    value is refused."""
    m = _SETTING.match(line.text.strip())
    if not m or m.group(1) not in KEYS:
        return False
    if m.group(2) is None:
        raise ScenarioError(name, f"line {line.number}", f"{m.group(1)}: no value")
    settings.values[m.group(1)] = (m.group(2), line.number)
    return True


def read(path: str | Path) -> Settings:
    """The settings a file of `Get-MPIOSetting` and `Get-MSDSMGlobalDefaultLoadBalancePolicy`
    output holds; any other line is refused, naming it."""
    name = str(path)
    settings = Settings()
    after_default = False
    for line in pasted.unwrapped(name, pasted.file_lines(path))():
        text = line.text.strip()
        command = pasted.command_of(line.text)
        if command is not None:
            after_default = DEFAULT_COMMAND.match(command) is not None
            if not after_default and not re.match(r"^Get-MPIOSetting\b", command, re.I):
                raise ScenarioError(name, f"line {line.number}", f"`{command[:40]}`: this file holds Get-MPIOSetting "
                                                                 "and Get-MSDSMGlobalDefaultLoadBalancePolicy output")
            continue
        if not text:
            continue
        if setting_line(name, line, settings):
            continue
        if after_default or (settings.default_policy is None and text in DEFAULT_POLICIES and not settings.values):
            settings.default_policy = default_policy(name, line)
            after_default = False
            continue
        raise ScenarioError(name, f"line {line.number}", f"{text[:60]!r}: not a Get-MPIOSetting line "
                                                         f"(`Name : Value`, one of {', '.join(KEYS)}) nor a policy "
                                                         f"Get-MSDSMGlobalDefaultLoadBalancePolicy prints")
    if not settings.values and settings.default_policy is None:
        raise ScenarioError(name, "", "no Get-MPIOSetting line and no default policy")
    return settings


def default_policy(name: str, line: pasted.Line) -> tuple[str, int]:
    """The word Get-MSDSMGlobalDefaultLoadBalancePolicy printed, with its line."""
    word = line.text.strip()
    if word not in DEFAULT_POLICIES:
        raise ScenarioError(name, f"line {line.number}", f"{word[:30]!r}: Get-MSDSMGlobalDefaultLoadBalancePolicy "
                                                         f"prints one of {', '.join(DEFAULT_POLICIES)}")
    return word, line.number
