a 1ms 10ms 10ms flags=fast
