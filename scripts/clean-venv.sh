#!/usr/bin/env bash
# The newcomer path, end to end, outside the checkout: build the sdist and the wheel (the wheel from the sdist),
# check both hold every run-time file, install the wheel (not editable) with its dependencies into a fresh venv in
# a temporary folder, copy in the third-party sample driver package (tests/sample_project), and from that folder
# certify it with plain pytest and with driverkit, certify the installed SDK, run doctor and replay a cassette.
# Every certificate's verdict is checked, not only exit codes. The install and doctor commands are the README's own
# (its "Install into your project" block, read with tools/docs_text.py), run as written, so CI fails when the words
# a newcomer follows stop working.
#
# Environment: KIT_PYTHON builds (default .venv/bin/python, which needs the `build` package: the dev extra);
# KIT_BASE_PYTHON makes the venv (default python3); KIT_OPENAI pins openai in the venv (e.g. 3.31.0);
# KIT_CLEAN_VENV_STEPS limits the steps (default "browser computer sdk replay"); KIT_SDK_SELECTION (a pytest -k
# expression) certifies only those SDK checks, for a run whose openai a full suite already checked; KIT_KEEP=1 keeps
# the folder;
# KIT_DIST=DIR builds the sdist and wheel into DIR, or reuses the pair already there (CI's second run, which must
# test the same build: a folder holding anything else is an error).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${KIT_PYTHON:-$repo/.venv/bin/python}"
base_python="${KIT_BASE_PYTHON:-python3}"
steps=" ${KIT_CLEAN_VENV_STEPS:-browser computer sdk replay} "
work="$(mktemp -d -t kit-clean-venv.XXXXXX)"
trap '[ -n "${KIT_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
started=$(date +%s)
step() { echo; echo "== clean venv: $* ($(( $(date +%s) - started )) s)"; }
wants() { [[ "$steps" == *" $1 "* ]]; }

dist="${KIT_DIST:-$work/dist}"
mkdir -p "$dist"
shopt -s nullglob
built=("$dist"/*)
shopt -u nullglob
if [ "${#built[@]}" -eq 0 ]; then
  step "build the sdist, then the wheel from it"
  "$python" -m build --outdir "$dist" "$repo" >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }
else
  step "reuse the sdist and wheel in $dist"
fi
wheel="$(ls "$dist"/*.whl 2>/dev/null || true)"
sdist="$(ls "$dist"/*.tar.gz 2>/dev/null || true)"
if [ "$(wc -w <<<"$wheel $sdist")" -ne 2 ] || [ "$(ls "$dist" | wc -l)" -ne 2 ]; then
  echo "clean-venv.sh: $dist must hold exactly one wheel and one sdist (or nothing, to build them); it holds:" >&2
  ls "$dist" >&2
  exit 1
fi
echo "$(basename "$wheel") $(basename "$sdist")"

step "both hold every run-time file"
"$python" - "$repo" "$wheel" "$sdist" <<'PY'
import subprocess, sys, tarfile, zipfile
from pathlib import Path

repo, wheel, sdist = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
listed = subprocess.run(["git", "-C", str(repo), "ls-files", "fixtures", "containers"], capture_output=True, text=True)
if listed.returncode == 0 and listed.stdout.strip():
    data = listed.stdout.split()
else:  # not a git checkout: every file in the two folders
    data = [str(p.relative_to(repo)) for d in ("fixtures", "containers") for p in (repo / d).rglob("*") if p.is_file()]
data = [name for name in data if "__pycache__" not in name]
assert any(n.startswith("fixtures/pages/") for n in data) and any(n.startswith("fixtures/streams/") for n in data)
in_wheel = set(zipfile.ZipFile(wheel).namelist())
sdist_names = tarfile.open(sdist).getnames()
root = sdist_names[0].split("/", 1)[0]
in_sdist = {name.split("/", 1)[1] for name in sdist_names if "/" in name}
package = [n for n in in_wheel if n.endswith((".ambr", ".toml")) and n.startswith("conformance/")]
assert any("__snapshots__" in n for n in package), "no syrupy snapshot in the wheel"
assert any(n.startswith("conformance/known_deviations/") for n in package), "no known-deviation file in the wheel"
missing_wheel = [n for n in data if f"conformance/_data/{n}" not in in_wheel]
missing_sdist = [n for n in data if n not in in_sdist]
assert not missing_wheel, f"missing from the wheel: {missing_wheel}"
assert "reference/execution/js/runtime.cjs" in in_wheel, "the JavaScript runtime is missing from the wheel"
npm_tree = sorted(n for n in in_wheel | in_sdist if "node_modules" in n)
assert not npm_tree, f"an npm tree was packaged (run npm ci after installing instead): {npm_tree[:3]}"
assert not missing_sdist, f"missing from the sdist: {missing_sdist}"
# Cassette generators are developer tooling (tools/): the installed kit reads their output, never runs them.
generators = sorted(n for n in in_wheel if n.startswith("tools/") or n.endswith("_sources.py"))
assert not generators, f"a cassette generator was packaged in the wheel: {generators}"
print(f"{len(data)} fixture and container files in both; {len(package)} snapshot and deviation files in the wheel")
PY

step "the README's install words"
words="$(cd "$repo" && "$python" -m tools.docs_text block README "Install into your project" sh)"
printf '%s\n' "$words"
# The build line names the tool built with above (the sdist first and the wheel from it, a superset of the README's
# wheel); the pip lines and doctor run below as written; `driverkit desktop build` is left to the steps that need
# the image (the computer step here uses the local desktop).
grep -q "python -m build --wheel" <<<"$words" || { echo "the README no longer builds with python -m build" >&2; exit 1; }
install_lines="$(grep "^pip install" <<<"$words" | grep -v "python -m build" || true)"
doctor_line="$(grep "^driverkit doctor" <<<"$words" || true)"
[ -n "$install_lines" ] && [ -n "$doctor_line" ] || { echo "the README's install block lost its pip or doctor line" >&2; exit 1; }

step "a fresh venv with the wheel installed (not editable), by the README's pip line"
"$base_python" -m venv "$work/venv"
venv="$work/venv/bin"
# Where the words run: the clone as the reader has it after the build line, its dist/ holding the wheel.
mkdir -p "$work/clone"
ln -s "$dist" "$work/clone/dist"
(cd "$work/clone" && PATH="$venv:$PATH" PIP_QUIET=1 PIP_DISABLE_PIP_VERSION_CHECK=1 bash -euo pipefail -c "$install_lines") 2>&1 \
    | { grep -v "^WARNING: Location" || true; }
if [ -n "${KIT_OPENAI:-}" ]; then
  "$venv/python" -m pip install -q --disable-pip-version-check "openai==$KIT_OPENAI" 2>&1 | { grep -v "^WARNING: Location" || true; }
fi

project="$work/project"
cp -r "$repo/tests/sample_project" "$project"
cd "$project"
export PATH="$venv:$PATH"
"$venv/python" -c "import openai, conformance; print('openai', openai.__version__, 'kit at', conformance.__file__)"
case "$("$venv/python" -c 'import conformance; print(conformance.__file__)')" in
    "$work"/venv/*) ;;
    *) echo "the venv does not import the kit from the installed wheel" >&2; exit 1 ;;
esac

# verdict DIR ALLOWED...: the certificate in DIR exists, something passed, its verdict is one allowed, and its
# clauses cite documents by title and section.
verdict() {
  "$venv/python" - "$@" <<'PY'
import json, sys
certificate = json.load(open(sys.argv[1] + "/certificate.json"))
print("certificate:", certificate["verdict"], certificate["summary"])
assert certificate["summary"]["passed"] > 0, "nothing passed: did any check run?"
assert certificate["verdict"] in sys.argv[2:], f"verdict {certificate['verdict']!r} not in {sys.argv[2:]}"
sources = {clause["source"] for clause in certificate["clauses"]}
assert all(" > " in source and ".txt" not in source for source in sources), sorted(sources)[:3]
PY
}

# passed_without_failure DIR: a certificate of a -k selection: something passed, nothing failed, and the clauses the
# selection left out are "not checked" (so its verdict is "not fully checked").
passed_without_failure() {
  "$venv/python" - "$1" <<'PY'
import json, sys
certificate = json.load(open(sys.argv[1] + "/certificate.json"))
print("certificate:", certificate["verdict"], certificate["summary"])
assert certificate["summary"]["passed"] > 0, "nothing passed: did any check run?"
assert not certificate["summary"].get("failed"), f"clauses failed: {certificate['summary']}"
assert certificate["verdict"] == "not fully checked", certificate["verdict"]
PY
}

step "driverkit doctor, as the README runs it"
bash -c "$doctor_line" || echo "(doctor reports missing pieces above; the steps below say whether they matter)"

if wants browser; then
  step "plain pytest --driver=mypkg.drivers:make, from the folder that holds mypkg"
  pytest -p no:cacheprovider -q -n 2 --driver=mypkg.drivers:make --certificate=cert-pytest
  verdict cert-pytest conforms
  # make_driver is make (the same function), which the step above certified in full; what this step adds is the
  # CLI passing --driver through to that package, so one check module proves it instead of a second full run.
  step "driverkit certify --driver mypkg.drivers:make_driver (the state checks: the CLI's --driver path)"
  driverkit certify --driver mypkg.drivers:make_driver --out cert-cli -- -q -k check_state
  passed_without_failure cert-cli
fi

if wants computer; then
  step "driverkit certify --computer-driver mypkg.drivers:make_computer (local desktop)"
  driverkit certify --computer-driver mypkg.drivers:make_computer --out cert-computer -- -q
  verdict cert-computer conforms
fi

if wants sdk; then
  if [ -n "${KIT_SDK_SELECTION:-}" ]; then
    step "driverkit certify --sdk (the installed openai), the checks -k \"$KIT_SDK_SELECTION\" picks"
    driverkit certify --sdk --out cert-sdk -- -q -n 2 -k "$KIT_SDK_SELECTION"
    passed_without_failure cert-sdk
  else
    step "driverkit certify --sdk (the installed openai)"
    driverkit certify --sdk --out cert-sdk -- -q -n 2
    verdict cert-sdk "conforms" "conforms except for known deviations"
  fi
fi

if wants replay; then
  step "driverkit replay of the bundled example cassettes"
  for name in reader fieldwork mixed exec-py; do
    driverkit replay "$("$venv/python" -c "from conformance import resources; print(resources.streams('examples', '$name.jsonl'))")"
  done
fi

step "done"
