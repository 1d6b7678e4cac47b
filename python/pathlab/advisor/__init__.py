"""The advisor: findings on a host's multipathing, the candidate settings of each stack it runs,
the array vendors' practice, and the ranking of candidates simulated on the host."""
