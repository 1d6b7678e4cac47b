"""Output formats: what admins already read (vdbench, esxtop) and what machines read (JSON, CSV)."""
