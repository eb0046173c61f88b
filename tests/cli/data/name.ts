../x 1ms 10ms 10ms
