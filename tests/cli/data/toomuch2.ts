heavy 8ms 9ms 9ms work=7.6ms
light 2.5ms 8ms 8ms work=2.4ms count=2
