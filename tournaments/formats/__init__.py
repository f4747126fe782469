"""Competition formats as plug-ins: one module per format, each declaring its settings once and answering for
its rounds, its recording, its standings and its part of the pages (docs/formats.md, "Adding a format")."""
