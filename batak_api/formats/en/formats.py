"""English dates and times as the admin shows them: always to the minute, on a 24-hour clock
(Django's English "P" leaves the minutes off on the hour: "7 a.m.")."""

DATETIME_FORMAT = "N j, Y, H:i"
TIME_FORMAT = "H:i"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
