package model

import "time"

// appendTime writes t in UTC as time.Time's MarshalJSON does (RFC 3339 with
// sub-seconds; a year outside 0-9999 is its error). It is written by hand,
// the civil date worked out once from the Unix time: AppendFormat (and
// Date, Clock and Year, each converting the time again) showed in the
// profile of every line.
func appendTime(dst []byte, t time.Time) ([]byte, error) {
	secs := t.Unix()
	days, rem := secs/86400, secs%86400
	if rem < 0 {
		days, rem = days-1, rem+86400
	}
	year, month, day := civilDate(days)
	if year < 0 || year > 9999 {
		return dst, marshalError(t.UTC())
	}
	hour, minute, sec := rem/3600, rem/60%60, rem%60
	dst = append(dst, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if ns := t.Nanosecond(); ns != 0 { // .999999999: trailing zeros go
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		dst = append(dst, frac[:n]...)
	}
	return append(dst, 'Z', '"'), nil
}

// civilDate is the proleptic Gregorian date of a day counted from
// 1970-01-01 (Howard Hinnant's days_from_civil, inverted: eras of 400
// years, the year starting in March so the leap day comes last).
func civilDate(days int64) (year, month, day int64) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // day of the era, 0-146096
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of the era, 0-399
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the year from March 1st
	mp := (5*doy + 2) / 153                                // month from March, 0-11
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if mp >= 10 {
		month = mp - 9
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}
