"""Tiny policy documents of our own: the gate's near-miss and plain-"no" cases, and a travel-request
document whose claims section shares a question's words but not its closest vector (hybrid retrieval)."""

EXAM_HALL = """---
doc_id: exam-hall
title: Examination Hall Rules
version: 1.0
effective_date: 2026-07-01
owner: Examinations Office
---

# Examination Hall Rules

## 1. Admission to the hall
Students must carry their hall ticket and identity card to the examination hall. A student who
arrives more than 30 minutes after the start of the examination is not admitted. Bags are left
outside the hall at the student's own risk.

## 2. Items not permitted
Mobile phones, smart watches and programmable calculators are not permitted inside the examination
hall. A student found with such an item is reported to the examination committee.
"""

TRAVEL = """---
doc_id: travel
title: Travel Expenses
version: 1.0
effective_date: 2026-07-01
owner: Finance Office
---

# Travel Expenses

## 1. Lodging
Hotel costs on official travel are reimbursed up to the approved nightly rate for the destination.
Receipts are submitted within 10 working days of return.

## 2. Personal expenses
Laundry and dry-cleaning costs during official travel are not reimbursed. Personal phone calls and
in-room entertainment are not reimbursed either.
"""

TRAVEL_REQUESTS = """---
doc_id: travel-forms
title: Travel Requests
version: 1.0
effective_date: 2026-07-01
owner: Finance Office
---

# Travel Requests

## 1. Requesting approval for a trip
Every trip on official business is requested before it is booked. The traveller describes the
purpose of the trip, the dates and the estimated cost, and the supervisor approves the request in writing.

## 2. Advances
A traveller may ask for a cash advance of up to 80 percent of the estimated cost. The advance is
settled against the final claim after the trip.

## 3. Claims after the trip
Claims are made on Form Q-17 within 10 working days of return, with every receipt attached. Late
claims are paid only with the finance officer's approval.

## 4. Booking the trip
Flights and hotels are booked through the approved travel agency once the trip is approved. The
traveller keeps the booking confirmation for the claim.
"""

# A FAQ in plain text: each question on a line of its own, its answer in the next paragraph. The
# answers are short, so without reading it as a FAQ the chunker merges entries until a chunk has 40
# words, and one chunk holds one entry's answer with the next entry's question.
PASSPORT_FAQ = """Passport questions, answered by the Records Office.

How do I renew my passport?

Send the renewal form by post with your old passport and one recent photo.

How long does a renewal take?

Routine renewals are returned within six to eight weeks.

Can I travel while my renewal is being processed?

No. You need a valid passport in hand to travel abroad.

How much does express service cost?

Express service costs an extra 60 dollars per application.

Who can sign my photo?

A person who has known you for two years, such as a teacher or doctor, can sign it.
"""

# A table of limits: each row answers a question, but only beside the column headers.
EXPENSE_LIMITS = """---
doc_id: expenses
title: Travel Expense Limits
version: 1.0
effective_date: 2026-07-01
owner: Finance Office
---

# Travel Expense Limits

## 1. Daily limits
The limits below apply to every trip inside the country. Claims above a limit need the approval of
the budget holder before the trip.

| Expense | Limit | Receipt needed |
|---|---|---|
| Meals | 50 dollars per day | No |
| **Hotel** | 200 dollars per night | Yes |
| Taxi | 40 dollars per trip | Yes |

## 2. Claims
Claims are submitted within 10 working days of return, with every receipt the table above asks for.
"""

# Two documents that state one rule with different facts (2 remote days a week against 3), for the
# conflict an answer must tell (pipeline/answer/conflicts.py) and the library's conflict scan.
REMOTE_WORK = """---
doc_id: remote-work
title: Remote Work Policy
version: 1.0
effective_date: 2026-07-01
owner: Human Resources Office
---

# Remote Work Policy

## 1. Eligibility
Staff members who have completed their probation may request remote work. The request is made to
the line manager in writing, at least one week before the first remote day.

## 2. Remote Work Days
Employees may work remotely for up to 2 days per week with the approval of their line manager.
Remote work days are recorded in the attendance system before the start of the week.
"""

STAFF_HANDBOOK_REMOTE_WORK = """---
doc_id: staff-handbook
title: Staff Handbook
version: 1.0
effective_date: 2026-07-01
owner: Registrar's Office
---

# Staff Handbook

## 4. Working Arrangements
Office hours are from 9 a.m. to 5 p.m. on working days. Employees may work remotely for up to 3 days
per week with the approval of their line manager. Staff keep their shared calendar up to date.

## 5. Annual Leave
Each employee receives 30 days of annual leave per calendar year. Leave is requested through the
staff portal at least two weeks in advance.
"""

# The reader's cases (issue 29): the sentence that names who approves sits beside a neighbour that
# shares the question's words; a rule stated for one group only; a yes/no settled by one sentence.
STAFF_HANDBOOK = """---
doc_id: staff-handbook
title: Staff Handbook
version: 1.0
effective_date: 2026-07-01
owner: People Team
---

# Staff Handbook

## 1. Leave of absence
A leave of absence lets a member of staff step away from work for personal reasons for up to six
months. A request for a leave of absence is made in writing at least one month before it starts.
Each request for a leave of absence is approved by the Director of People. Salary is not paid during
a leave of absence.

## 2. Resignation
Employees on a permanent contract must give four weeks' notice of their resignation in writing to
their line manager. The notice period starts on the day after the letter is received.

## 3. Overtime
Overtime is paid at one and a half times the normal hourly rate. Overtime must be agreed in advance
with the line manager. Overtime is not paid for training days.
"""
