a 1ms
