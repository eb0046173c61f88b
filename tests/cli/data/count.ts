a 1ms 10ms 10ms count=0
