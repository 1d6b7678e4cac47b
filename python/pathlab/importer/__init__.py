"""What a host prints, made into a scenario of it: the kinds of input pathlab reads, how each is
recognised, its reader and what it contributes; one builder per host stack."""
