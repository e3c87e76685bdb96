"""Well-behaved adapters for the suite's own tests (another name, other wording)."""
