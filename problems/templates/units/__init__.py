"""Units family: decimal (GB) and binary (GiB) byte units, the most common slip of all."""
