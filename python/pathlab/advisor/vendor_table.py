"""Vendor practice as data: the host multipathing settings array vendors publish, read from
`vendor_practice.toml` (one row per array family, host stack and configuration, each with its
source and date; the file's header says what the rows may hold).

`practice_for(vendor, product, stack)` finds the rows for an array as the host sees it: the
SCSI INQUIRY vendor and product (`multipath -ll`'s "EMC,SYMMETRIX", esxcli's Vendor and Model),
or vendor "NVME" and the NVMe subsystem model. A malformed table is refused with one
`ScenarioError` naming the file, the row's field path and what is allowed."""

from __future__ import annotations

import datetime
import functools
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NoReturn

from pathlab.api import ScenarioError

#: The table shipped with pathlab.
TABLE = Path(__file__).resolve().parent / "vendor_practice.toml"

#: The host stacks a row can be for: `esxi-iscsi` is an ESXi software iSCSI adapter's parameters
#: (`esxcli iscsi adapter param`), `linux-scsi` a Linux SCSI disk's sysfs attributes (a udev rule's).
STACKS = ("esxi-nmp", "esxi-hpp", "dm-multipath", "nvme-native", "windows-mpio", "esxi-iscsi", "linux-scsi")
#: The stacks issue 22 surveyed every array family on (a row or what was searched, for each);
#: Windows MPIO, ESXi iSCSI and Linux SCSI disk rows are failure timers (issue 36), found where a
#: vendor publishes them.
SURVEYED = STACKS[:4]


@dataclass(frozen=True)
class Setting:
    """What the vendor states, in the stack's own terms; None where the source says nothing."""

    # ESXi NMP (a SATP claim rule and its PSP options)
    satp: str | None = None
    psp: str | None = None
    rr_type: str | None = None
    iops: int | None = None
    bytes: int | None = None
    claim_option: str | None = None
    # ESXi HPP
    plugin: str | None = None
    pss: str | None = None
    # dm-multipath (multipath.conf device section)
    path_grouping_policy: str | None = None
    path_selector: str | None = None
    path_checker: str | None = None
    prio: str | None = None
    detect_prio: bool | None = None
    hardware_handler: str | None = None
    features: str | None = None
    failback: str | int | None = None
    no_path_retry: str | int | None = None
    rr_weight: str | None = None
    rr_min_io_rq: int | None = None
    fast_io_fail_tmo: int | None = None
    dev_loss_tmo: str | int | None = None
    #: The vendor says to keep the OS's built-in settings (an empty multipath.conf).
    keep_builtin: bool | None = None
    # Linux native NVMe multipath
    iopolicy: str | None = None
    #: NVMe-oF controllers' ctrl_loss_tmo, seconds (-1: reconnect forever); the rows that give it
    #: say for which transport in `note`.
    ctrl_loss_tmo: int | None = None
    # Windows MPIO (msdsm): its timers, in seconds, as Set-MPIOSetting and the registry name them
    pdo_remove_period: int | None = None
    retry_count: int | None = None
    retry_interval: int | None = None
    #: The disk's own timeout (Disk\TimeOutValue, Set-MPIOSetting -NewDiskTimeout).
    disk_timeout: int | None = None
    path_verify_enabled: bool | None = None
    path_recovery_interval: int | None = None
    # ESXi software iSCSI adapter (esxcli iscsi adapter param): the login's timeout, in seconds,
    # and TCP delayed ACK; neither changes a stall pathlab simulates (compared, not run)
    login_timeout: int | None = None
    delayed_ack: bool | None = None
    # Linux SCSI disk (sysfs, set by a udev rule): the command timeout, `device/timeout`, seconds
    device_timeout: int | None = None

    def given(self) -> dict[str, Any]:
        """The values the source states, by multipath.conf / esxcli / sysfs name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


@dataclass(frozen=True)
class Practice:
    """One row: a vendor's published setting for an array family on one host stack."""

    vendor: str
    model: str
    stack: str
    #: Regular expressions searched in the SCSI INQUIRY vendor and product (SCSI rows).
    scsi_vendor: str | None
    scsi_product: str | None
    #: Regular expression searched in the NVMe subsystem model (NVMe rows).
    nvme_model: str | None
    #: One real identity: "vendor,product" as `multipath -ll` prints it, or an NVMe model.
    example: str
    #: Whether the array reports ALUA target port groups in the configuration of the row.
    tpgs: bool
    setting: Setting
    #: What an admin pastes; the source's own text when `command_from_source`.
    command: str
    command_from_source: bool
    source: str
    date: str
    note: str
    #: Settings where the vendor differs from pathlab's claim tables (hwtable, udev rules, ESXi
    #: system claim rules).
    claim_differs: tuple[str, ...]
    #: ESXi rows: the settings the source says ESXi's own system claim rules already give.
    esxi_default: tuple[str, ...] = ()
    #: nvme-native rows: the transport the row's `ctrl_loss_tmo` is for (the udev rule's
    #: `ATTR{transport}`); None: every transport.
    ctrl_loss_tmo_transport: str | None = None

    def matches(self, vendor: str, product: str) -> bool:
        if self.nvme_model is not None:
            return vendor.strip().upper() == "NVME" and re.search(self.nvme_model, product.rstrip()) is not None
        assert self.scsi_vendor is not None and self.scsi_product is not None
        return (re.search(self.scsi_vendor, vendor.strip()) is not None
                and re.search(self.scsi_product, product.strip()) is not None)

    def identity(self) -> tuple[str, str]:
        """The (vendor, product) the host reports, from `example`."""
        if self.nvme_model is not None:
            return "NVME", self.example
        vendor, _, product = self.example.partition(",")
        return vendor, product


@dataclass(frozen=True)
class NotPublished:
    """An array family and the stacks for which no vendor practice was found, and what was searched."""

    vendor: str
    model: str
    stacks: tuple[str, ...]
    searched: str


@dataclass(frozen=True)
class VendorTable:
    practices: tuple[Practice, ...]
    not_published: tuple[NotPublished, ...]

    def practice_for(self, vendor: str, product: str, stack: str, tpgs: bool | None = None) -> list[Practice]:
        if stack not in STACKS:
            raise ValueError(f"unknown stack {stack!r}: one of {', '.join(STACKS)}")
        return [p for p in self.practices
                if p.stack == stack and p.matches(vendor, product) and (tpgs is None or p.tpgs == tpgs)]


# Checks of one value: (test, what is allowed).
Check = tuple[Callable[[Any], bool], str]


def _one_of(*values: str) -> Check:
    return (lambda v: isinstance(v, str) and v in values), "one of " + ", ".join(f'"{v}"' for v in values)


def _whole(minimum: int) -> Check:
    return (lambda v: type(v) is int and v >= minimum), f"a whole number ≥ {minimum}"


def _whole_or(minimum: int, *words: str) -> Check:
    number, _ = _whole(minimum)
    word, _ = _one_of(*words)
    return (lambda v: number(v) or word(v)), f"a whole number ≥ {minimum} or " + " or ".join(f'"{w}"' for w in words)


def _features(value: Any) -> bool:
    """dm's feature string: the count of words that follow, then the words ("2 pg_init_retries 50")."""
    words = value.split() if isinstance(value, str) else []
    return bool(words) and words[0].isdigit() and int(words[0]) == len(words) - 1


_TEXT: Check = (lambda v: isinstance(v, str) and v.strip() != ""), "text"
_FLAG: Check = (lambda v: isinstance(v, bool)), "true or false"
_DM = ("dm-multipath",)
_MPIO = ("windows-mpio",)

#: Every setting a row may give: the stacks it belongs to and what it may be.
SETTINGS: dict[str, tuple[tuple[str, ...], Check]] = {
    "satp": (("esxi-nmp",), ((lambda v: isinstance(v, str) and re.fullmatch(r"VMW_SATP_[A-Z_]+", v) is not None),
                             "an ESXi SATP name (VMW_SATP_...)")),
    "psp": (("esxi-nmp",), _one_of("VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU")),
    "rr_type": (("esxi-nmp",), _one_of("iops", "bytes", "latency", "default")),
    "iops": (("esxi-nmp", "esxi-hpp"), _whole(1)),
    "bytes": (("esxi-nmp", "esxi-hpp"), _whole(1)),
    "claim_option": (("esxi-nmp",), _one_of("tpgs_on", "tpgs_off")),
    "plugin": (("esxi-hpp",), _one_of("HPP", "NMP")),
    "pss": (("esxi-hpp",), _one_of("FIXED", "LB-RR", "LB-IOPS", "LB-BYTES", "LB-Latency")),
    "path_grouping_policy": (_DM, _one_of("failover", "multibus", "group_by_prio", "group_by_serial",
                                          "group_by_node_name")),
    "path_selector": (_DM, _one_of("service-time 0", "round-robin 0", "queue-length 0", "historical-service-time 0")),
    "path_checker": (_DM, _one_of("tur", "directio", "emc_clariion", "rdac", "hp_sw", "readsector0", "cciss_tur",
                                  "none")),
    "prio": (_DM, _one_of("const", "alua", "emc", "ontap", "rdac", "hp_sw", "hds", "sysfs", "ana", "weightedpath",
                          "path_latency", "random", "iet", "datacore")),
    "detect_prio": (_DM, _FLAG),
    "hardware_handler": (_DM, _one_of("0", "1 alua", "1 emc", "1 rdac", "1 hp_sw")),
    "features": (_DM, (_features, 'the count of words, then the words ("0", "2 pg_init_retries 50")')),
    "failback": (_DM, _whole_or(0, "immediate", "manual", "followover")),
    "no_path_retry": (_DM, _whole_or(1, "queue", "fail")),
    "rr_weight": (_DM, _one_of("uniform", "priorities")),
    "rr_min_io_rq": (_DM, _whole(1)),
    "fast_io_fail_tmo": (_DM, _whole(0)),
    "dev_loss_tmo": (_DM, _whole_or(1, "infinity")),
    "keep_builtin": (_DM, _FLAG),
    "iopolicy": (("nvme-native",), _one_of("numa", "round-robin", "queue-depth")),
    "ctrl_loss_tmo": (("nvme-native",), ((lambda v: type(v) is int and v >= -1),
                                         "a whole number of seconds ≥ -1 (-1: reconnect forever)")),
    "pdo_remove_period": (_MPIO, _whole(0)),
    "retry_count": (_MPIO, _whole(0)),
    "retry_interval": (_MPIO, _whole(0)),
    "disk_timeout": (_MPIO, _whole(1)),
    "path_verify_enabled": (_MPIO, _FLAG),
    "path_recovery_interval": (_MPIO, _whole(1)),
    "login_timeout": (("esxi-iscsi",), _whole(1)),
    "delayed_ack": (("esxi-iscsi",), _FLAG),
    "device_timeout": (("linux-scsi",), _whole(1)),
}


def _date(value: Any) -> bool:
    """YYYY-MM-DD, or YYYY-MM where the source gives only the month, and a real date."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", value):
        return False
    try:
        datetime.date.fromisoformat(value if len(value) == 10 else f"{value}-01")
    except ValueError:
        return False
    return True


def _pattern(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        re.compile(value)
    except re.error:
        return False
    return True


_STACK: Check = (lambda v: v in STACKS), "one of " + ", ".join(STACKS)
_NAMES: Check = (lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v)), "a list of setting names"
_PATTERN: Check = _pattern, "a regular expression"

#: A row's fields, whether each is required, and what it may be.
ROW: dict[str, tuple[bool, Check]] = {
    "vendor": (True, _TEXT),
    "model": (True, _TEXT),
    "stack": (True, _STACK),
    "scsi_vendor": (False, _PATTERN),
    "scsi_product": (False, _PATTERN),
    "nvme_model": (False, _PATTERN),
    "example": (True, _TEXT),
    "tpgs": (True, _FLAG),
    "setting": (True, ((lambda v: isinstance(v, dict) and bool(v)), "a table of at least one setting")),
    "command": (True, _TEXT),
    "command_from_source": (True, _FLAG),
    "source": (True, _TEXT),
    "date": (True, (_date, "a date, YYYY-MM-DD (or YYYY-MM where the source gives only the month)")),
    "note": (True, _TEXT),
    "claim_differs": (True, _NAMES),
    "esxi_default": (False, _NAMES),
    "ctrl_loss_tmo_transport": (False, _one_of("tcp", "rdma", "fc")),
}

NOT_PUBLISHED: dict[str, tuple[bool, Check]] = {
    "vendor": (True, _TEXT),
    "model": (True, _TEXT),
    "stacks": (True, ((lambda v: isinstance(v, list) and bool(v) and all(s in STACKS for s in v)),
                      "a list of stacks, each one of " + ", ".join(STACKS))),
    "searched": (True, _TEXT),
}


class _Reader:
    """Checks one file's tables, raising the first problem as a ScenarioError(file, field, message)."""

    def __init__(self, file: str):
        self.file = file

    def fail(self, field: str, message: str) -> NoReturn:
        raise ScenarioError(self.file, field, message)

    def table(self, entry: Any, where: str, spec: Mapping[str, tuple[bool, Check]]) -> dict[str, Any]:
        if not isinstance(entry, dict):
            self.fail(where, "expected a table")
        for key in entry:
            if key not in spec:
                self.fail(f"{where}.{key}", "unknown field; allowed: " + ", ".join(spec))
        for key, (required, (test, allowed)) in spec.items():
            if key not in entry:
                if required:
                    self.fail(f"{where}.{key}", f"missing; expected {allowed}")
            elif not test(entry[key]):
                self.fail(f"{where}.{key}", f"{entry[key]!r}: expected {allowed}")
        return entry

    def practice(self, entry: Any, where: str) -> Practice:
        row = self.table(entry, where, ROW)
        stack = row["stack"]
        scsi = "scsi_vendor" in row or "scsi_product" in row
        if scsi == ("nvme_model" in row):
            self.fail(where, "give either scsi_vendor and scsi_product (a SCSI array) or nvme_model (NVMe)")
        if scsi and not ("scsi_vendor" in row and "scsi_product" in row):
            self.fail(f"{where}.{'scsi_product' if 'scsi_vendor' in row else 'scsi_vendor'}",
                      "missing; a SCSI row gives both scsi_vendor and scsi_product")
        given = row["setting"]
        for key, value in given.items():
            if key not in SETTINGS:
                self.fail(f"{where}.setting.{key}", "unknown setting; allowed: " + ", ".join(SETTINGS))
            stacks, (test, allowed) = SETTINGS[key]
            if stack not in stacks:
                self.fail(f"{where}.setting.{key}", f"not a setting of {stack}; it belongs to {', '.join(stacks)}")
            if not test(value):
                self.fail(f"{where}.setting.{key}", f"{value!r}: expected {allowed}")
        for key in ("claim_differs", "esxi_default"):
            for name in row.get(key, []):
                if name not in given:
                    self.fail(f"{where}.{key}", f"{name!r} is not a setting this row gives")
        if "esxi_default" in row and stack != "esxi-nmp":
            self.fail(f"{where}.esxi_default", "only for esxi-nmp rows")
        if "ctrl_loss_tmo_transport" in row and "ctrl_loss_tmo" not in given:
            self.fail(f"{where}.ctrl_loss_tmo_transport", "only for a row whose setting gives ctrl_loss_tmo")
        practice = Practice(
            vendor=row["vendor"], model=row["model"], stack=stack,
            scsi_vendor=row.get("scsi_vendor"), scsi_product=row.get("scsi_product"), nvme_model=row.get("nvme_model"),
            example=row["example"], tpgs=row["tpgs"], setting=Setting(**given),
            command=row["command"].strip(), command_from_source=row["command_from_source"],
            source=row["source"], date=row["date"], note=" ".join(row["note"].split()),
            claim_differs=tuple(row["claim_differs"]), esxi_default=tuple(row.get("esxi_default", [])),
            ctrl_loss_tmo_transport=row.get("ctrl_loss_tmo_transport"),
        )
        vendor, product = practice.identity()
        if not practice.matches(vendor, product):
            self.fail(f"{where}.example", f"{practice.example!r} is not matched by the row's own identity patterns")
        return practice

    def read(self, text: str) -> VendorTable:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(self.file, "", f"not valid TOML: {e}") from None
        for key in data:
            if key not in ("practice", "not_published"):
                self.fail(key, "unknown table; allowed: [[practice]], [[not_published]]")
        rows = data.get("practice", [])
        if not isinstance(rows, list) or not rows:
            self.fail("practice", "expected at least one [[practice]] row")
        practices = tuple(self.practice(entry, f"practice.{i}") for i, entry in enumerate(rows))
        missing = data.get("not_published", [])
        if not isinstance(missing, list):
            self.fail("not_published", "expected [[not_published]] entries")
        not_published = []
        for i, entry in enumerate(missing):
            gap = self.table(entry, f"not_published.{i}", NOT_PUBLISHED)
            not_published.append(NotPublished(gap["vendor"], gap["model"], tuple(gap["stacks"]),
                                              " ".join(gap["searched"].split())))
        return VendorTable(practices, tuple(not_published))


def load(path: str | Path = TABLE) -> VendorTable:
    """Reads and checks a vendor practice table."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(str(path), "", e.strerror or "cannot be read") from None
    return _Reader(str(path)).read(text)


@functools.cache
def shipped() -> VendorTable:
    """The table that ships with pathlab, read once."""
    return load(TABLE)


def practice_for(vendor: str, product: str, stack: str, tpgs: bool | None = None) -> list[Practice]:
    """The shipped rows for an array on a stack: several when the vendor's practice depends on
    the configuration (`tpgs`: whether the array reports ALUA; None takes every row), none when
    pathlab knows no published practice for it."""
    return shipped().practice_for(vendor, product, stack, tpgs)
