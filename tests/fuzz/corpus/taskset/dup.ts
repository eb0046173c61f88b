a 1ms 10ms 10ms
a 1ms 10ms 10ms
