// TrellisLayout: see docs/architecture.md for what this module owns.
