"""System tests: properties of the whole program (crash safety, concurrency, accounting, tenant
isolation, privacy, real sample files, bad and hostile input), each run through the CLI or a
real process rather than one module."""
