a 950ms 1s 1s
b 950ms 1s 1s
c 950ms 1s 1s
