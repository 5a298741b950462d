"""Checks of the SDK's BrowserToolset/AsyncBrowserToolset and ComputerToolset/AsyncComputerToolset against the
documents, using the kit's recording probes. Run with ``pytest --pyargs conformance.contracts.toolset``."""
