"""Question sets written blind over real vaults, each with the manifest of its fixed sample (see ``run``)."""
