"""The kit's Node host (host.mjs), shipped as package data; see conformance.harness.node."""
