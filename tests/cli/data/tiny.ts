a 1ms 10ms 10ms work=500us
