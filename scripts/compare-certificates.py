"""Compare the clause lists and statuses of two certificates (before and after a change to the kit).

    python scripts/compare-certificates.py BEFORE/certificate.json AFTER/certificate.json

Prints every clause whose status or list of checks differs, or is in only one of them, and exits 1 when there
is any; the certificates' dates, versions and reasons are not compared.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def statuses(path: Path) -> dict[str, str]:
    """Each clause's status and the checks that decided it, as one comparable line."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        str(clause["id"]): f"{clause['status']} by {sorted(clause.get('checks') or [])}" for clause in data["clauses"]
    }


def main(before_path: str, after_path: str) -> int:
    before, after = statuses(Path(before_path)), statuses(Path(after_path))
    differences = [
        f"{clause}: {before.get(clause, '(absent)')} -> {after.get(clause, '(absent)')}"
        for clause in sorted(before.keys() | after.keys())
        if before.get(clause) != after.get(clause)
    ]
    print(f"{len(before)} clauses before, {len(after)} after, {len(differences)} differ")
    for line in differences:
        print(f"  {line}")
    return 1 if differences else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
