"""Two tiny policy documents of our own, for the gate's near-miss and plain-"no" cases."""

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
