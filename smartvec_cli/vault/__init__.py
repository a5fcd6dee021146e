"""Reading the vault: which files are notes, what each note says, and how it splits into passages."""
