a 3ms 2ms 10ms
