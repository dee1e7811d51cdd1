"""A person's own data: export it (export.py), delete the account by anonymising it in
place (erasure.py), the pages for both and staff's admin actions. Above every app it
reads, below the pages (the layers in pyproject.toml)."""
