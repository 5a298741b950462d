"""The public API: every name in conformance.api is importable from the package, the package itself stays light,
moved names still work with a warning that names the new import, and the README and the docs import only public
names."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from importlib.metadata import version

import pytest

import conformance
from conformance import api
from tools import docs_text


@pytest.mark.parametrize("name", api.__all__)
def test_every_public_name_is_importable_from_the_package(name: str) -> None:
    assert getattr(conformance, name) is getattr(api, name)


def test_asking_the_package_for_a_submodule_does_not_load_the_api() -> None:
    # The import system asks the package for a submodule's name before importing it: loading the API to answer
    # would import the harness in the middle of importing the harness.
    probe = "import sys, conformance; print(hasattr(conformance, 'reporting'), 'conformance.api' in sys.modules)"
    answer = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert answer == "False False"


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Enviroment'"):
        conformance.Enviroment  # noqa: B018


def test_importing_the_package_loads_none_of_the_heavy_dependencies() -> None:
    # pytest imports the package for the kit's plugin in every run of a project that has the kit installed.
    probe = (
        "import sys, conformance; print(sorted({'openai', 'hypothesis', 'playwright', 'httpx2'} & set(sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_the_old_environment_import_works_with_a_warning_naming_the_new_one() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from conformance.environment import Environment
    assert Environment is api.Environment
    assert [warning.category for warning in caught] == [DeprecationWarning]
    assert "from conformance import Environment" in str(caught[0].message)
    with pytest.raises(ImportError):
        from conformance.environment import Nothing  # noqa: F401


def test_the_docs_import_only_public_names() -> None:
    code = "\n".join(
        block for page in docs_text.every_page() for block in docs_text.blocks(docs_text.text(page), "python")
    )
    private = re.findall(r"^\s*(?:from conformance\.\S+ import|import conformance\.)", code, flags=re.MULTILINE)
    assert not private, private
    imported = {
        name.strip()
        for names in re.findall(r"^from conformance import ([^\n(]+)$", code, flags=re.MULTILINE)
        for name in names.split(",")
    }
    assert imported and imported <= set(api.__all__), imported - set(api.__all__)


def test_the_version_is_the_installed_distributions() -> None:
    assert api.kit_version() == version("responses-driver-kit")
