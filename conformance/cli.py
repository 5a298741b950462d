"""``driverkit``: certify a driver, list clauses and deviations, replay or shrink a recorded run, check this machine.

``driverkit certify`` is pytest with the kit's own checks selected: everything after ``--`` is passed to pytest
unchanged, so ``-n 2``, ``-k`` and ``--junitxml`` work as they do there.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from conformance import resources
from conformance.clauses import registry
from conformance.options import EXECUTION_TOKEN_VARIABLE

DEFAULT_DRIVER = "reference.browser:sync_factory"


def _certify(args: argparse.Namespace) -> int:
    # One token: pytest picks its rootdir before it knows the kit's options, so a separate value is taken for a
    # path, and once the folder exists (in xdist workers) it becomes their rootdir and every node ID changes.
    pytest_args = ["-p", "no:cacheprovider", f"--certificate={args.out}"]
    if importlib.util.find_spec("pytest_asyncio") is not None:
        # The kit's checks run their own event loops; pytest-asyncio, when installed, otherwise warns about a
        # setting that only the host project's configuration could give.
        pytest_args += ["-o", "asyncio_default_fixture_loop_scope=function"]
    if args.sdk:
        pytest_args.append("--node-sdk" if args.sdk == "node" else "--sdk")
    if args.driver or not (args.sdk or args.computer_driver or args.execution_service):
        pytest_args.append(f"--driver={args.driver or DEFAULT_DRIVER}")
    if args.computer_driver:
        pytest_args.append(f"--computer-driver={args.computer_driver}")
    if args.execution_service:
        pytest_args += [
            f"--execution-service={args.execution_service}",
            f"--execution-token-env={args.execution_token_env}",
        ]
    pytest_args += args.pytest_args
    # A fresh interpreter: this one has already imported the SDK (and so anyio), which pytest could then not
    # assertion-rewrite, and a certification run should not depend on what the command line loaded first.
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_args])


def _clauses(args: argparse.Namespace) -> int:
    if args.ids or args.checks:
        from conformance.clauses import UnknownClauseError
        from conformance.clauses.checks import checks_lines

        try:
            lines = checks_lines(args.ids, part=args.part)
        except UnknownClauseError as error:
            print(f"driverkit: unknown clause ID {error.args[0]} (driverkit clauses lists them)", file=sys.stderr)
            return 2
        print("\n".join(lines))
        return 0
    if args.open_questions:
        return _open_questions()
    if args.coverage or args.worksheet or args.documents:
        from conformance.clauses.coverage import coverage_command

        return coverage_command(args.documents, worksheet=args.worksheet)
    for clause in registry():
        if args.part and clause.part != args.part:
            continue
        member = f" [{clause.member}]" if clause.member else ""
        print(f"{clause.id}{member}: {clause.summary}  ({clause.source})")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    doctor = importlib.import_module("conformance.doctor")
    wanted = args.wanted or [doctor.DEFAULT_FOR]
    if "all" in wanted:
        wanted = [capability.key for capability in doctor.CAPABILITIES]
    return int(doctor.run(wanted))


def _open_questions() -> int:
    from conformance.clauses.open_questions import OPEN_QUESTIONS

    print(f"{len(OPEN_QUESTIONS)} question(s) the documents leave open; the kit does not judge them:")
    for question in OPEN_QUESTIONS:
        print(f"\n{question.id} ({', '.join(question.clauses)}): {question.question}")
        print(f"  kit's choice: {question.choice}")
        print(f"  why: {question.why}")
    return 0


def _desktop_build(args: argparse.Namespace) -> int:
    # The build scripts ship inside the kit (conformance/_data/containers), so this works from an installed wheel;
    # the execution image's script asks this interpreter where the reference.execution package is.
    script = resources.containers("execution", "build-image.sh") if args.execution else None
    desktop = resources.containers("build-desktop-image.sh")
    environment = {**os.environ, "KIT_PYTHON": sys.executable}
    return subprocess.call(["bash", str(script or desktop)], env=environment)


# Subcommands whose arguments (add_arguments) and handler (run) live in a module of their own. A module is imported
# only when its command runs or the commands are listed: replay and shrink import the SDK.
MODULE_COMMANDS: Final = (
    ("replay", "conformance.replay_command", "replay a recorded cassette through the runner"),
    (
        "shrink",
        "conformance.streams.shrink_command",
        "shrink a cassette to the fewest events whose replay still diverges the same way",
    ),
    (
        "compare-sdks",
        "conformance.compare",
        "list the clauses where the Python and Node SDK certificates differ (Markdown)",
    ),
    ("merge-certificates", "conformance.merge", "merge per-shard or per-worker certificates into one"),
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``command`` (the subcommand about to be parsed) one that skips importing
    what only another subcommand needs: ``replay``'s arguments come from a module that imports the SDK, which
    would add about half a second before ``certify`` even starts pytest."""
    parser = argparse.ArgumentParser(prog="driverkit", description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)

    certify = commands.add_parser("certify", help="run the contract checks and write a certificate")
    certify.add_argument(
        "--driver", metavar="MODULE:FACTORY", help=f"browser driver factory (default {DEFAULT_DRIVER})"
    )
    certify.add_argument("--computer-driver", metavar="MODULE:FACTORY", help="computer driver factory")
    certify.add_argument(
        "--sdk",
        nargs="?",
        const="python",
        choices=("python", "node"),
        help="check the installed SDK's toolsets and runners instead; --sdk=node: the npm openai the kit installed",
    )
    certify.add_argument(
        "--execution-service",
        metavar="URL",
        help="certify the code-execution service at this endpoint URL instead (its bearer token from the environment)",
    )
    certify.add_argument(
        "--execution-token-env",
        metavar="NAME",
        default=EXECUTION_TOKEN_VARIABLE,
        help=f"environment variable holding the execution service's token (default {EXECUTION_TOKEN_VARIABLE})",
    )
    certify.add_argument(
        "--out", type=Path, default=Path("certificate"), help="certificate folder (default ./certificate)"
    )
    certify.add_argument("pytest_args", nargs=argparse.REMAINDER, help="arguments after -- go to pytest")
    certify.set_defaults(handler=_certify)

    clauses = commands.add_parser("clauses", help="list the contract clauses the kit checks")
    clauses.add_argument(
        "ids", nargs="*", metavar="ID", help="show these clauses: where each is defined, what it covers, its checks"
    )
    clauses.add_argument("--part", choices=sorted({clause.part for clause in registry()}), help="only one family")
    clauses.add_argument("--checks", action="store_true", help="list every clause with the checks that judge it")
    clauses.add_argument(
        "--open-questions", action="store_true", help="list what the documents leave open and the kit's choice"
    )
    clauses.add_argument(
        "--coverage",
        action="store_true",
        help="how the documents' normative statements map to clauses: totals, gaps, untestable statements",
    )
    clauses.add_argument(
        "--documents",
        type=Path,
        metavar="DIR",
        help="the contract documents (<key>_*.txt), to check the map against their text (default $DRIVERKIT_DOCUMENTS)",
    )
    clauses.add_argument(
        "--worksheet",
        action="store_true",
        help="with --documents: print every document unit the map does not account for yet, with its fingerprint",
    )
    clauses.set_defaults(handler=_clauses)

    deviations = commands.add_parser("deviations", help="list the recorded known SDK deviations")
    deviations.add_argument("--node", action="store_true", help="the npm openai's (the --sdk=node baseline)")
    deviations.set_defaults(
        handler=lambda args: importlib.import_module("conformance.deviations").list_command(node=args.node)
    )

    doctor = commands.add_parser("doctor", help="say what this machine can certify and how to add what is missing")
    doctor.add_argument(
        "--for",
        dest="wanted",
        action="append",
        choices=["browser", "sdk", "computer", "docker", "node", "node-sdk", "all"],
        help="the certification you want to run (repeatable; default browser): exit 1 only when one of these cannot",
    )
    doctor.set_defaults(handler=_doctor)

    desktop = commands.add_parser("desktop", help="the Docker desktop for --desktop=docker")
    desktop_commands = desktop.add_subparsers(dest="desktop_command", required=True)
    build = desktop_commands.add_parser(
        "build", help="build the desktop image (kit/desktop:latest; KIT_DESKTOP_IMAGE overrides) on a running engine"
    )
    build.add_argument(
        "--execution", action="store_true", help="build the code-execution image (kit/exec) on top of it instead"
    )
    build.set_defaults(handler=_desktop_build)

    for name, module_name, summary in MODULE_COMMANDS:
        subcommand = commands.add_parser(name, help=summary)
        if command in (None, name):
            module = importlib.import_module(module_name)
            module.add_arguments(subcommand)
            subcommand.set_defaults(handler=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    # The top level takes no option but --help, so the first other word names the subcommand.
    command = next((word for word in arguments if not word.startswith("-")), None)
    args = build_parser(command).parse_args(arguments)
    if getattr(args, "pytest_args", None) and args.pytest_args[0] == "--":
        args.pytest_args = args.pytest_args[1:]
    try:
        return int(args.handler(args))
    except BrokenPipeError:
        # The reader went away (``driverkit clauses | head``): what it wanted was printed; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
