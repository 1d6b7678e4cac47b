"""`nvme list -v -o json` (nvme-cli 2.x `json_detail_list`): read into the rows `nvme list-subsys`
gives, each path with its namespace's NSID, its ANA state and the line of the document it is
on; generated documents read as their text listing does; any mangled document read or refused
in one line naming the place in it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import generated_nvme_list
from conftest import quiet
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer import import_files
from pathlab.readers import nvme_subsys

#: Two controllers of a NetApp subsystem over TCP, two namespaces each, as nvme-cli 2.11 prints
#: `nvme list -v -o json` (json-c pretty printing; values made up in its form).
DOCUMENT = """\
{
  "Devices":[
    {
      "HostNQN":"nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0035-3810-8033-b4c04f4e4e32",
      "HostID":"4c4c4544-0035-3810-8033-b4c04f4e4e32",
      "Subsystems":[
        {
          "Subsystem":"nvme-subsys0",
          "SubsystemNQN":"nqn.1992-08.com.netapp:sn.9b7d42b7:subsystem.ora",
          "Controllers":[
            {
              "Controller":"nvme0",
              "Cntlid":"1",
              "SerialNumber":"81KDnJ3XXsYlAAAAAAAB",
              "ModelNumber":"NetApp ONTAP Controller",
              "Firmware":"9.14.1",
              "Transport":"tcp",
              "Address":"traddr=192.168.10.11,trsvcid=4420,src_addr=192.168.10.50",
              "Slot":"",
              "Namespaces":[],
              "Paths":[
                {
                  "Path":"nvme0c0n1",
                  "ANAState":"optimized"
                },
                {
                  "Path":"nvme0c0n2",
                  "ANAState":"optimized"
                }
              ]
            },
            {
              "Controller":"nvme1",
              "Cntlid":"2",
              "SerialNumber":"81KDnJ3XXsYlAAAAAAAB",
              "ModelNumber":"NetApp ONTAP Controller",
              "Firmware":"9.14.1",
              "Transport":"tcp",
              "Address":"traddr=192.168.10.12,trsvcid=4420,src_addr=192.168.10.50",
              "Slot":"",
              "Namespaces":[],
              "Paths":[
                {
                  "Path":"nvme0c1n1",
                  "ANAState":"non-optimized"
                },
                {
                  "Path":"nvme0c1n2",
                  "ANAState":"inaccessible"
                }
              ]
            }
          ],
          "Namespaces":[
            {
              "NameSpace":"nvme0n1",
              "Generic":"ng0n1",
              "NSID":1,
              "UsedBytes":0,
              "MaximumLBA":2097152,
              "PhysicalSize":1073741824,
              "SectorSize":512
            },
            {
              "NameSpace":"nvme0n2",
              "Generic":"ng0n2",
              "NSID":7,
              "UsedBytes":0,
              "MaximumLBA":2097152,
              "PhysicalSize":1073741824,
              "SectorSize":512
            }
          ]
        }
      ]
    }
  ]
}
"""


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with quiet():
        table = nvme_subsys.read(path)
    return [(r.controller, r.path, r.nsid, r.ana_state, r.line) for r in table.itertuples()]


def test_each_path_is_read_with_its_namespace_ana_state_and_line(tmp_path: Path) -> None:
    listing = tmp_path / "list-v.json"
    listing.write_text("# nvme list -v -o json\n" + DOCUMENT)
    # The document starts at line 2: `"Path":"nvme0c0n1"`, its line 23, is line 24 of the file.
    assert _rows(listing) == [("nvme0", "nvme0c0n1", 1, "optimized", 24), ("nvme0", "nvme0c0n2", 7, "optimized", 28),
                              ("nvme1", "nvme0c1n1", 1, "non-optimized", 45),
                              ("nvme1", "nvme0c1n2", 7, "inaccessible", 49)]
    with quiet():
        imported = import_files([str(listing)]).text
    # Namespace 7 reached through nvme1 is inaccessible: a path down from the start, its line named.
    (fault,) = [line for line in imported.splitlines() if line.startswith("path = ")]
    assert fault.endswith(f":C0:T1:L2\"  # {listing}, line 49: nvme1 is ANA inaccessible"), fault


def test_a_path_not_named_as_the_kernel_names_it_is_refused_at_its_place(tmp_path: Path) -> None:
    listing = tmp_path / "list-v.json"
    listing.write_text(DOCUMENT.replace('"Path":"nvme0c1n2"', '"Path":"sdb"'))
    try:
        nvme_subsys.read(listing)
    except ScenarioError as e:
        assert e.args == (str(listing), "Devices[0].Subsystems[0].Controllers[1].Paths[1].Path",
                          "'sdb': a path is named `nvmeXcYnZ` (namespace Z of subsystem X through controller Y)")
    else:
        raise AssertionError("read")


def test_two_documents_in_one_file_are_refused_naming_the_second(tmp_path: Path) -> None:
    """Two runs pasted one after the other were read as an empty file (each after its command
    line: `nvme list -v` was no command of the reader's, so both were skipped) or as the first
    with the second skipped (without command lines); a second run is refused, as every reader
    refuses a second output of its command."""
    prompted, bare = tmp_path / "prompted.json", tmp_path / "bare.json"
    prompted.write_text("# nvme list -v -o json\n" + DOCUMENT + "# nvme list -v -o json\n" + DOCUMENT)
    bare.write_text(DOCUMENT + DOCUMENT)
    for listing, refusal in ((prompted, ("line 80", "`nvme list -v -o json` output a second time (first at line 1): "
                                                    "give one run per file")),
                             (bare, ("line 79", "a second JSON document (the first at line 1): two runs in one file? "
                                                "give one run per file"))):
        with pytest.raises(ScenarioError) as refused:
            nvme_subsys.read(listing)
        assert refused.value.args == (str(listing), *refusal)


def test_a_controller_serving_no_namespace_beside_others_is_said_and_left_out(tmp_path: Path) -> None:
    """It gave a row without a namespace, which the import named `…/ns1` beside the real
    namespace 1: refused as `devices.1.name … is defined twice`. The text listing says such a
    controller and leaves it out; so does the document."""
    doc = json.loads(DOCUMENT)
    controllers = doc["Devices"][0]["Subsystems"][0]["Controllers"]
    controllers.append({**controllers[1], "Controller": "nvme2", "Paths": [], "Namespaces": [],
                        "Address": "traddr=192.168.10.13,trsvcid=4420,src_addr=192.168.10.50"})
    listing = tmp_path / "list-v.json"
    listing.write_text(json.dumps(doc, indent=2))
    with pytest.warns(PathlabWarning, match=r"list-v.json: line 54: nvme2 serves no namespace the document lists: no "
                                            r"path of it imported"):
        assert list(nvme_subsys.read(listing)["controller"]) == ["nvme0", "nvme0", "nvme1", "nvme1"]
    with quiet():
        scenario = import_files([str(listing)])
    assert [d.rsplit("/", 1)[1] for d in _device_names(scenario.text)] == ["ns1", "ns7"]


def _device_names(text: str) -> list[str]:
    import tomllib

    return [d["name"] for d in tomllib.loads(text)["devices"]]


SETTINGS = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(generated_nvme_list.drawn(), st.booleans())
def test_a_document_reads_as_its_text_listing_does(tmp_path_factory, drawn: tuple[str, str, list[dict[str, Any]]],
                                                   v3: bool) -> None:
    """The same subsystems printed as text and as JSON (nvme-cli 2.x or 3.x's) give the same
    controllers, transports, addresses and NSIDs (the text prints no ANA state, the JSON no usage)."""
    folder = tmp_path_factory.mktemp("json")
    (folder / "list-v.txt").write_text(generated_nvme_list.text(*drawn))
    (folder / "list-v.json").write_text(generated_nvme_list.json_text(drawn[1], drawn[2], "nqn.2014-08.org.nvmexpress:uuid:x",
                                                                                  v3))
    with quiet():
        tables = [nvme_subsys.read(folder / f"list-v.{kind}") for kind in ("txt", "json")]
    keys = ["subsystem", "nqn", "nsid", "controller", "transport", "address"]
    as_text, as_json = (sorted(tuple(str(v) for v in row) for row in t[keys].itertuples(index=False)) for t in tables)
    assert as_text == as_json
    assert set(tables[1]["ana_state"]) == {"optimized"} and tables[1]["line"].notna().all()


def _mangled(doc: Any, draw: st.DrawFn) -> Any:
    """The document with one value somewhere replaced by another of any type."""
    if isinstance(doc, dict) and doc and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(doc)))
        return {**doc, key: _mangled(doc[key], draw)}
    if isinstance(doc, list) and doc and draw(st.booleans()):
        at = draw(st.integers(0, len(doc) - 1))
        return [*doc[:at], _mangled(doc[at], draw), *doc[at + 1:]]
    return draw(st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=12),
                          st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2)))


@settings(max_examples=50, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_mangled_document_is_read_or_refused_in_one_line(tmp_path_factory, data: st.DataObject) -> None:
    doc = data.draw(st.composite(lambda draw: _mangled(json.loads(DOCUMENT), draw))())
    listing = tmp_path_factory.mktemp("fuzz") / "list-v.json"
    listing.write_text(json.dumps(doc, indent=2))
    try:
        with quiet():
            nvme_subsys.read(listing)
            import_files([str(listing)])
    except ScenarioError as e:
        assert len(e.args) == 3 and e.args[2] and "\n" not in e.args[2]


def test_nvme_cli_3_document_with_address_details_and_a_null_slot_reads_as_2_x_does(tmp_path: Path) -> None:
    """nvme-cli 3.0 (`src/nvme-print-json.c` at v3.0-rc1, `json_detail_list`): each controller
    has `AddressDetails` (traddr, host_traddr, host_iface, trsvcid, those set) after `Address`,
    and a value libnvme does not have (`Slot` of a fabrics controller) is null (`obj_add_str` of
    NULL): the rows are 2.x's."""
    old, new = tmp_path / "list-v-2.json", tmp_path / "list-v-3.json"
    old.write_text(DOCUMENT)
    v3 = DOCUMENT
    for host, port in (("11", "nvme0"), ("12", "nvme1")):
        address = f'"Address":"traddr=192.168.10.{host},trsvcid=4420,src_addr=192.168.10.50",'
        assert address in v3, port
        v3 = v3.replace(address, address + f'\n              "AddressDetails":{{"traddr":"192.168.10.{host}",'
                                           '"trsvcid":"4420"},')
    v3 = v3.replace('"Slot":""', '"Slot":null')
    new.write_text(v3)
    assert json.loads(v3)["Devices"][0]["Subsystems"][0]["Controllers"][1]["AddressDetails"]["traddr"] == "192.168.10.12"
    # One line more for each controller's `AddressDetails` above its paths.
    assert _rows(new) == [(c, p, n, a, line + 1 + (c == "nvme1")) for c, p, n, a, line in _rows(old)]
