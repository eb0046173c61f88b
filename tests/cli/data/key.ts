a 1ms 10ms 10ms foo=1
