a 1ms 14ms 108s count=5
