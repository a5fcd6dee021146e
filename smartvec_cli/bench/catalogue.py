"""What the generated benchmark vaults talk about, in two catalogues with nothing in common.

``EVALUATION`` is what ``bench accuracy`` measures; ``CALIBRATION`` is what ``bench
calibrate`` fits the confidence on. They share no topic (policy, fact family, identifier
family, long note, rule) and no question template, so the fitted confidence is judged on
questions it never saw: ``Catalogue.topics`` and ``Catalogue.templates`` say what each
holds, and the report counts the overlap.

Every policy names one value that changes over the years (a number of days, an amount of
money), the sentence a policy note uses for it, and questions that ask for it in other
words: a question never copies the note's sentence, so retrieval has to understand the
question rather than match its wording. ``claim`` is how a chat message repeats a value
(the generator injects outdated ones); ``reworded`` says the same thing in other words (an
agreeing restatement, or with another value a disagreement that is not the same sentence
with a different number); ``unrelated`` shares words and the unit with the policy but is
about something else, which no contradiction detector should flag.

Beside the policies: stable facts that never change (the no-conflict control), notes named
by identifiers a language model cannot embed meaningfully (error codes, ticket ids, host
names, made-up product names), long notes whose answering paragraph has a near miss in the
same section, and rules (yes/no statements) for negated contradictions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    name: str
    role: str


OWNERS = (
    Person("Ana Duarte", "Head of People"),
    Person("Jonah Weber", "Finance Controller"),
    Person("Mei Tanaka", "Chief Information Security Officer"),
    Person("Samuel Okoro", "Head of Engineering"),
    Person("Ilse Novak", "Workplace Manager"),
    Person("Rafael Costa", "Head of IT"),
    Person("Priyanka Shah", "Head of Legal"),
    Person("Tobias Lind", "Procurement Lead"),
)


@dataclass(frozen=True)
class PolicySpec:
    key: str
    name: str
    owner: int  # index into the catalogue's owners
    topic: str  # completes "This policy describes ..."
    heading: str  # the section that holds the value
    values: tuple[str, ...]  # in increasing order
    ordered: bool  # True: each version raises the value (money); False: it may go either way
    fact: str  # the note's sentence, with {v}
    asks: tuple[str, ...]  # present-tense paraphrases
    asked: tuple[str, ...]  # past-tense paraphrases; {when} is where a date phrase goes
    claim: str  # how a chat message states it, with {v}
    reworded: str = ""  # the fact in other words, with {v}
    unrelated: str = ""  # shares words and the unit, says something else; with {v}


EVAL_POLICIES: tuple[PolicySpec, ...] = (
    PolicySpec(
        "remote-work", "Remote Work Policy", 0, "when employees may work away from the office", "Working from Home",
        ("1 day", "2 days", "3 days", "4 days", "5 days"), False,
        "Employees may work from home on up to {v} per week, agreed with their team lead.",
        ("How many days a week am I allowed to work remotely?", "What is the weekly limit for home-office days?",
         "How often can staff do their job from home each week?"),
        ("How many days a week were staff allowed to work remotely {when}?", "What was the weekly limit for home-office days {when}?",
         "{when}, how often could people do their job from home each week?"),
        "we can work from home {v} a week",
        reworded="Working from your own place is fine for {v} out of every week, once the lead has said yes.",
        unrelated="The office cleaning crew works {v} per week, agreed with the facilities team.",
    ),
    PolicySpec(
        "per-diem", "Travel Expense Policy", 1, "what the company pays while employees travel on business", "Daily Allowance",
        ("EUR 40", "EUR 45", "EUR 50", "EUR 55", "EUR 60", "EUR 65", "EUR 70", "EUR 75", "EUR 80"), True,
        "On business trips the per diem is {v} per day, covering meals, tips and local incidentals.",
        ("How much money do I get each day for food when I travel for work?", "What daily allowance covers meals on a work trip?",
         "What is the daily rate paid for meals while away on company business?"),
        ("How much was the daily meal allowance for work trips {when}?", "What daily amount for food did travellers get {when}?",
         "{when}, what was paid per day for meals on company trips?"),
        "the travel per diem is {v} a day",
        reworded="Anyone on the road for the company gets {v} a day to cover food and small costs.",
        unrelated="The canteen's daily special costs {v} per day, meals for visitors not included.",
    ),
    PolicySpec(
        "hotel-cap", "Business Accommodation Policy", 1, "how employees book and pay for overnight stays", "Hotel Limits",
        ("EUR 110", "EUR 120", "EUR 130", "EUR 140", "EUR 150", "EUR 165", "EUR 180", "EUR 200"), True,
        "Hotel rooms booked for business travel are reimbursed up to {v} per night.",
        ("What is the most I can spend on a room per night on a work trip?", "How expensive may an overnight stay be when travelling for the company?",
         "What is the nightly ceiling for lodging on business travel?"),
        ("What was the most you could spend on a room per night on a work trip {when}?", "How expensive could an overnight stay be on company travel {when}?",
         "{when}, what was the nightly ceiling for lodging on business travel?"),
        "hotels are capped at {v} a night",
        reworded="For a night away on company business, the room may cost at most {v}.",
        unrelated="The travel agency charges a booking fee of {v} per night for group reservations of hotel rooms.",
    ),
    PolicySpec(
        "parental-leave", "Parental Leave Policy", 0, "the paid time off for parents after a birth or an adoption", "Paid Leave",
        ("6 weeks", "8 weeks", "10 weeks", "12 weeks", "14 weeks", "16 weeks", "20 weeks"), True,
        "Each new parent receives {v} of fully paid parental leave, to be taken within the first year.",
        ("How long is the paid break for new mothers and fathers?", "How many weeks off with full salary do I get when I have a baby?",
         "What is the paid time-off entitlement after the birth or adoption of a child?"),
        ("How long was the paid break for new mothers and fathers {when}?", "How many weeks off with full salary did new parents get {when}?",
         "{when}, what was the paid time-off entitlement after a birth or adoption?"),
        "new parents get {v} of paid leave",
        reworded="Mothers and fathers who welcome a child keep their full salary for {v} away from work.",
        unrelated="The parental leave survey ran for {v} and was answered by each new parent in the pilot.",
    ),
    PolicySpec(
        "annual-leave", "Annual Leave Policy", 0, "holidays and how they are booked", "Entitlement",
        ("24 days", "25 days", "26 days", "27 days", "28 days", "30 days"), True,
        "Full-time employees are entitled to {v} of annual leave per calendar year.",
        ("How many vacation days do I get per year?", "What is the yearly holiday allowance for full-time staff?",
         "How much paid time off for holidays is there each year?"),
        ("How many vacation days did full-time staff get per year {when}?", "What was the yearly holiday allowance {when}?",
         "{when}, how much paid holiday time was there each year?"),
        "everyone gets {v} of holiday a year",
        reworded="Staff working full hours can take {v} of paid holiday every year.",
        unrelated="Full-time employees spent an average of {v} of annual training per calendar year, says the HR report.",
    ),
    PolicySpec(
        "password-rotation", "Password and Authentication Policy", 2, "how accounts are protected with passwords and second factors", "Password Changes",
        ("30 days", "45 days", "60 days", "90 days", "180 days"), False,
        "Passwords for company accounts must be changed every {v}.",
        ("How often do I need to reset my login secret?", "What is the required interval for renewing account passwords?",
         "After how long does a sign-in password expire?"),
        ("How often did people need to reset their login secret {when}?", "What was the required interval for renewing account passwords {when}?",
         "{when}, after how long did a sign-in password expire?"),
        "we still have to change our passwords every {v}",
        reworded="Every {v} you will be asked to pick a new login secret for your work accounts.",
        unrelated="Shared company accounts are audited every {v} by the security team.",
    ),
    PolicySpec(
        "screen-lock", "Endpoint Security Policy", 2, "how laptops and phones are kept safe", "Screen Lock",
        ("2 minutes", "3 minutes", "5 minutes", "10 minutes", "15 minutes"), False,
        "Laptops must lock the screen automatically after {v} of inactivity.",
        ("After how long idle does my computer have to lock itself?", "What is the inactivity timeout for the display lock?",
         "How long can a notebook sit unused before it must lock?"),
        ("After how long idle did computers have to lock themselves {when}?", "What was the inactivity timeout for the display lock {when}?",
         "{when}, how long could a notebook sit unused before it had to lock?"),
        "the laptop lock kicks in after {v} idle",
        reworded="If nobody touches a work notebook for {v}, its display must lock by itself.",
        unrelated="Meeting-room screens switch off automatically after {v} of inactivity.",
    ),
    PolicySpec(
        "home-office", "Home Office Equipment Policy", 0, "the equipment employees may buy for their workplace at home", "Equipment Budget",
        ("EUR 300", "EUR 400", "EUR 500", "EUR 600", "EUR 750", "EUR 900", "EUR 1,000"), True,
        "Every employee may claim a one-off equipment budget of {v} for a desk, a chair and a monitor at home.",
        ("How much can I spend on furniture for working at home?", "What is the budget for setting up a home workspace?",
         "How much does the company pay towards a desk and screen for my flat?"),
        ("How much could staff spend on furniture for working at home {when}?", "What was the budget for setting up a home workspace {when}?",
         "{when}, how much did the company pay towards a desk and screen at home?"),
        "the home office budget is {v}",
        reworded="For furnishing a workspace at home, each person can once spend up to {v} on a desk, chair and screen.",
        unrelated="The office refurbishment budget of {v} covers a desk, a chair and a monitor for each new meeting room.",
    ),
    PolicySpec(
        "learning-budget", "Learning and Development Policy", 0, "courses, conferences and books paid by the company", "Personal Budget",
        ("EUR 500", "EUR 750", "EUR 1,000", "EUR 1,200", "EUR 1,500", "EUR 2,000", "EUR 2,500"), True,
        "Each employee has an annual learning budget of {v} for courses, conferences and books.",
        ("How much money is available per person each year for education?", "What is my yearly allowance for training and conferences?",
         "How large is the personal development fund per year?"),
        ("How much money was available per person each year for education {when}?", "What was the yearly allowance for training and conferences {when}?",
         "{when}, how large was the personal development fund per year?"),
        "the learning budget is {v} per year",
        reworded="Courses, conferences and books are paid up to {v} per person and year.",
        unrelated="The team's annual budget for conference sponsorship is {v}, separate from courses and books.",
    ),
    PolicySpec(
        "mileage", "Vehicle Mileage Policy", 1, "the use of private cars for company business", "Mileage Rate",
        ("EUR 0.25", "EUR 0.28", "EUR 0.30", "EUR 0.32", "EUR 0.35", "EUR 0.38", "EUR 0.42"), True,
        "Business trips in a private car are reimbursed at {v} per kilometre.",
        ("What rate is paid per km when I drive my own car for work?", "How much do I get back for each kilometre driven in a personal vehicle?",
         "What is the refund for using my own automobile on company business?"),
        ("What rate was paid per km for driving your own car for work {when}?", "How much did people get back for each kilometre in a personal vehicle {when}?",
         "{when}, what was the refund for using your own automobile on company business?"),
        "mileage is paid at {v} per km",
        reworded="Taking a private car on company errands is paid back at {v} for every kilometre.",
        unrelated="Company pool cars cost the department {v} per kilometre in fuel and maintenance.",
    ),
    PolicySpec(
        "on-call", "On-Call Compensation Policy", 3, "how engineers on the on-call rota are paid", "Weekly Payment",
        ("EUR 150", "EUR 200", "EUR 250", "EUR 300", "EUR 350", "EUR 400", "EUR 500"), True,
        "Engineers on the on-call rota receive a flat payment of {v} for each week on call.",
        ("How much extra pay is there for a week of standby duty?", "What is the weekly bonus for being reachable out of hours?",
         "How are engineers compensated for each week on the pager?"),
        ("How much extra pay was there for a week of standby duty {when}?", "What was the weekly bonus for being reachable out of hours {when}?",
         "{when}, how were engineers compensated for each week on the pager?"),
        "a week on call pays {v}",
        reworded="A week carrying the pager earns an engineer an extra {v}.",
        unrelated="The on-call tooling licence costs {v} for each week of the rota.",
    ),
    PolicySpec(
        "probation", "Probation Period Policy", 0, "the first months of a new employment", "Length of Probation",
        ("3 months", "4 months", "5 months", "6 months"), False,
        "New hires complete a probation period of {v} before their contract becomes permanent.",
        ("How long is the trial period for new starters?", "How many months until a newcomer's contract is permanent?",
         "What is the length of the initial probationary phase?"),
        ("How long was the trial period for new starters {when}?", "How many months did it take until a newcomer's contract was permanent {when}?",
         "{when}, what was the length of the initial probationary phase?"),
        "probation lasts {v}",
        reworded="Newcomers are on trial for {v}; after that their contract no longer has an end date.",
        unrelated="New hires complete an onboarding programme of {v} before they join a team.",
    ),
    PolicySpec(
        "notice-period", "Resignation and Notice Policy", 6, "what happens when an employee decides to leave", "Notice",
        ("2 weeks", "4 weeks", "6 weeks", "2 months", "3 months"), False,
        "Employees who resign must give {v} of notice in writing.",
        ("How much advance warning do I have to give if I quit?", "What notice must I serve when leaving the company?",
         "How long before my last day must I hand in my resignation?"),
        ("How much advance warning did you have to give when quitting {when}?", "What notice did leavers have to serve {when}?",
         "{when}, how long before the last day did a resignation have to be handed in?"),
        "the notice period is {v}",
        reworded="Leaving the company? Put it in writing {v} before your last day.",
        unrelated="Employees who move desks must give facilities {v} of notice for the move.",
    ),
    PolicySpec(
        "expense-deadline", "Expense Claims Policy", 1, "how out-of-pocket costs are reimbursed", "Submission Deadline",
        ("30 days", "45 days", "60 days", "90 days"), False,
        "Expense claims must be submitted within {v} after the cost was incurred.",
        ("How long do I have to file a reimbursement request?", "What is the cut-off for handing in receipts to get my money back?",
         "How many days after spending money can I still claim it?"),
        ("How long did staff have to file a reimbursement request {when}?", "What was the cut-off for handing in receipts {when}?",
         "{when}, how many days after spending money could you still claim it?"),
        "you have {v} to submit expenses",
        reworded="Receipts for money you spent must reach finance no later than {v} after buying.",
        unrelated="Expense claims are paid out within {v} after approval by the manager.",
    ),
    PolicySpec(
        "sick-note", "Sick Leave Policy", 0, "what to do when employees are ill", "Medical Certificate",
        ("first", "second", "third", "fourth"), False,
        "A doctor's certificate is required from the {v} day of absence due to illness.",
        ("From which day of being ill do I need a note from a physician?", "When do I have to hand in a medical note if I am off unwell?",
         "On what day of a sickness absence is proof from a doctor needed?"),
        ("From which day of being ill did you need a note from a physician {when}?", "When did people have to hand in a medical note if off unwell {when}?",
         "{when}, on what day of a sickness absence was proof from a doctor needed?"),
        "you only need a doctor's note from the {v} day",
        reworded="Staff off sick need a medical note starting on the {v} day they are away.",
        unrelated="A free doctor's visit is offered on the {v} day of the annual health week.",
    ),
    PolicySpec(
        "laptop-refresh", "Hardware Lifecycle Policy", 5, "how work computers are bought, replaced and recycled", "Replacement Cycle",
        ("24 months", "30 months", "36 months", "42 months", "48 months"), False,
        "Company laptops are replaced every {v} as part of the hardware lifecycle.",
        ("How often do we get a new notebook computer?", "After how long is a work machine swapped for a fresh one?",
         "What is the replacement rhythm for staff computers?"),
        ("How often did staff get a new notebook computer {when}?", "After how long was a work machine swapped for a fresh one {when}?",
         "{when}, what was the replacement rhythm for staff computers?"),
        "laptops get swapped every {v}",
        reworded="Work notebooks are swapped for new ones after {v} of use.",
        unrelated="Company phones are replaced every {v} as part of the mobile contract.",
    ),
    PolicySpec(
        "log-retention", "Log Retention Policy", 2, "how long operational data is kept", "Application Logs",
        ("14 days", "30 days", "60 days", "90 days", "180 days", "365 days"), False,
        "Application logs are kept for {v} and then deleted automatically.",
        ("How long do we store service logs before they are purged?", "What is the retention period for application log data?",
         "After how many days is log output removed?"),
        ("How long were service logs stored before being purged {when}?", "What was the retention period for application log data {when}?",
         "{when}, after how many days was log output removed?"),
        "logs are kept for {v}",
        reworded="Service log output is deleted {v} after it was written.",
        unrelated="Audit reports are kept for {v} and then archived on tape.",
    ),
    PolicySpec(
        "backup-retention", "Backup Policy", 5, "how databases are backed up and restored", "Retention of Backups",
        ("7 days", "14 days", "21 days", "30 days", "35 days", "60 days"), False,
        "Database backups are retained for {v} before they are overwritten.",
        ("How long are database snapshots kept?", "What is the retention window for our database backup copies?",
         "How far back can we restore a database?"),
        ("How long were database snapshots kept {when}?", "What was the retention window for database backup copies {when}?",
         "{when}, how far back could a database be restored?"),
        "we keep database backups for {v}",
        reworded="A copy of each database can be restored for up to {v} back.",
        unrelated="Database licences are renewed every {v} before they expire.",
    ),
    PolicySpec(
        "lunch-subsidy", "Meal Subsidy Policy", 4, "the company's contribution to meals at work", "Lunch Subsidy",
        ("EUR 3.00", "EUR 3.50", "EUR 4.00", "EUR 4.50", "EUR 5.00", "EUR 6.00", "EUR 7.00"), True,
        "The company subsidises lunch with {v} per working day through the meal card.",
        ("How much does the employer contribute to lunch each day?", "What is the daily food top-up on the canteen card?",
         "How much lunch money do we get per workday?"),
        ("How much did the employer contribute to lunch each day {when}?", "What was the daily food top-up on the canteen card {when}?",
         "{when}, how much lunch money did staff get per workday?"),
        "the meal card gets {v} a day",
        reworded="Each working day the meal card is topped up with {v} from the employer.",
        unrelated="The canteen charges {v} per working day for a coffee subscription.",
    ),
    PolicySpec(
        "commuting", "Commuting Benefit Policy", 4, "support for travelling to and from the office", "Public Transport",
        ("EUR 30", "EUR 40", "EUR 49", "EUR 58", "EUR 65", "EUR 80"), True,
        "Employees receive a public transport allowance of {v} per month.",
        ("How much does the company pay towards my monthly train and bus ticket?", "What is the commuting subsidy for transit each month?",
         "How big is the monthly allowance for getting to the office by bus or rail?"),
        ("How much did the company pay towards a monthly train and bus ticket {when}?", "What was the commuting subsidy for transit each month {when}?",
         "{when}, how big was the monthly allowance for getting to the office by bus or rail?"),
        "the transit allowance is {v} a month",
        reworded="Bus and train tickets are supported with {v} every month.",
        unrelated="Employees pay a parking fee of {v} per month for a space in the garage.",
    ),
    PolicySpec(
        "purchase-approval", "Procurement Policy", 7, "how goods and services are bought", "Approval Threshold",
        ("EUR 500", "EUR 1,000", "EUR 1,500", "EUR 2,000", "EUR 2,500", "EUR 5,000"), True,
        "Purchases above {v} need written approval from the budget owner before ordering.",
        ("From what amount does a purchase need sign-off from the budget holder?", "What is the spending threshold above which buying something needs approval?",
         "How much can I order without asking the cost-centre manager first?"),
        ("From what amount did a purchase need sign-off from the budget holder {when}?", "What was the spending threshold that required approval {when}?",
         "{when}, how much could be ordered without asking the cost-centre manager?"),
        "anything over {v} needs sign-off",
        reworded="Buying anything that costs more than {v} needs the budget owner's written yes first.",
        unrelated="Purchases above {v} are delivered by courier rather than by post.",
    ),
    PolicySpec(
        "referral-bonus", "Employee Referral Policy", 0, "rewards for recommending new colleagues", "Referral Reward",
        ("EUR 500", "EUR 1,000", "EUR 1,500", "EUR 2,000", "EUR 2,500", "EUR 3,000"), True,
        "Employees who refer a candidate who is hired receive a bonus of {v}.",
        ("How much do I get if someone I recommended is hired?", "What is the reward for a successful hiring recommendation?",
         "How large is the payout for bringing in a new colleague?"),
        ("How much did you get if someone you recommended was hired {when}?", "What was the reward for a successful hiring recommendation {when}?",
         "{when}, how large was the payout for bringing in a new colleague?"),
        "the referral bonus is {v}",
        reworded="Recommend someone who gets hired and you are paid {v}.",
        unrelated="Candidates who are hired receive a signing bonus of {v} with their first salary.",
    ),
)

CALIBRATION_POLICIES: tuple[PolicySpec, ...] = (
    PolicySpec(
        "gym-subsidy", "Fitness Benefit Policy", 0, "the company's support for sport and fitness", "Gym Membership",
        ("EUR 20", "EUR 25", "EUR 30", "EUR 40", "EUR 50", "EUR 60"), True,
        "The company pays {v} per month towards a gym or sports club membership.",
        ("What does the employer put towards my fitness club each month?", "How much of a sports membership is covered monthly?",
         "What is the monthly gym contribution?"),
        ("What did the employer put towards a fitness club each month {when}?", "How much of a sports membership was covered monthly {when}?",
         "{when}, what was the monthly gym contribution?"),
        "the gym contribution is {v} a month",
        "Your fitness club fee is topped up by the employer with {v} every month.",
        "Guests of the sports club in the basement pay {v} per month for the sauna.",
    ),
    PolicySpec(
        "bike-lease", "Bike Leasing Policy", 1, "leasing bicycles through the payroll", "Bike Value",
        ("EUR 1,500", "EUR 2,000", "EUR 2,500", "EUR 3,000", "EUR 4,000"), True,
        "Employees may lease one bicycle worth up to {v} through the payroll scheme.",
        ("How expensive a bicycle can I lease via salary?", "What is the price ceiling for a leased bike?",
         "Up to what value does the cycle scheme go?"),
        ("How expensive a bicycle could be leased via salary {when}?", "What was the price ceiling for a leased bike {when}?",
         "{when}, up to what value did the cycle scheme go?"),
        "you can lease a bike up to {v}",
        "Through salary sacrifice you can get a bicycle with a price tag of at most {v}.",
        "The courier team has a budget of {v} for bicycle repairs this year.",
    ),
    PolicySpec(
        "phone-allowance", "Mobile Phone Policy", 5, "private phones used for work", "Monthly Allowance",
        ("EUR 15", "EUR 20", "EUR 25", "EUR 30", "EUR 40"), True,
        "Staff who use a private phone for work receive {v} per month towards the contract.",
        ("How much is paid monthly if I use my own mobile for the job?", "What is the allowance for a personal handset used at work?",
         "What do we get per month for bringing our own cell phone?"),
        ("How much was paid monthly for using your own mobile for the job {when}?", "What was the allowance for a personal handset used at work {when}?",
         "{when}, what did people get per month for bringing their own cell phone?"),
        "the phone allowance is {v} a month",
        "If your own mobile doubles as your work phone, the company chips in {v} a month.",
        "Roaming charges above {v} per month on a work phone need the approval of IT.",
    ),
    PolicySpec(
        "overtime-cap", "Working Time Policy", 0, "working hours, breaks and overtime", "Overtime",
        ("10 hours", "12 hours", "15 hours", "20 hours", "25 hours", "30 hours"), False,
        "Overtime may not exceed {v} in a calendar month without the works council's consent.",
        ("What is the monthly maximum of extra hours?", "How much additional time may someone work in a month?",
         "Where is the ceiling for extra work each month?"),
        ("What was the monthly maximum of extra hours {when}?", "How much additional time could someone work in a month {when}?",
         "{when}, where was the ceiling for extra work each month?"),
        "overtime is capped at {v} a month",
        "Nobody should clock more than {v} of extra work per month unless the works council agrees.",
        "The works council sets aside {v} a month for its own meetings.",
    ),
    PolicySpec(
        "conference-days", "Conference Attendance Policy", 3, "attending external events and meetups", "Event Days",
        ("2 days", "3 days", "4 days", "5 days", "6 days"), False,
        "Each engineer may spend {v} per year at external conferences during working time.",
        ("How many days a year can a developer go to industry events on the clock?", "What is the yearly quota of event days for engineers?",
         "How much paid time is there for tech meetups annually?"),
        ("How many days a year could a developer go to industry events on the clock {when}?", "What was the yearly quota of event days for engineers {when}?",
         "{when}, how much paid time was there for tech meetups annually?"),
        "engineers get {v} of conferences a year",
        "Developers can attend outside tech events on company time for up to {v} annually.",
        "The annual engineering offsite lasts {v} and is held in the spring.",
    ),
    PolicySpec(
        "access-review", "Access Review Policy", 2, "who may access which system", "Review Cycle",
        ("3 months", "4 months", "6 months", "9 months", "12 months"), False,
        "Access rights to production systems are reviewed every {v} by the system owner.",
        ("How frequently are permissions on live systems checked?", "What is the interval between audits of who can reach production?",
         "How often does an owner recertify accounts on prod?"),
        ("How frequently were permissions on live systems checked {when}?", "What was the interval between audits of who could reach production {when}?",
         "{when}, how often did an owner recertify accounts on prod?"),
        "access is reviewed every {v}",
        "System owners recertify who can get into production once every {v}.",
        "Backups of the production databases are kept for {v} before they are deleted.",
    ),
    PolicySpec(
        "sabbatical", "Sabbatical Policy", 0, "long unpaid breaks from work", "Eligibility",
        ("3 years", "4 years", "5 years", "6 years", "7 years"), False,
        "Employees become eligible for an unpaid sabbatical after {v} of service.",
        ("After how long with the firm can I take an extended unpaid break?", "How much tenure is needed before a career break?",
         "When does someone qualify for a long leave without pay?"),
        ("After how long with the firm could you take an extended unpaid break {when}?", "How much tenure was needed before a career break {when}?",
         "{when}, when did someone qualify for a long leave without pay?"),
        "you can take a sabbatical after {v}",
        "You can take a long unpaid career break once you have been with us for {v}.",
        "Long-service awards are handed to employees after {v} with the company.",
    ),
    PolicySpec(
        "patch-window", "Patch Management Policy", 2, "how security updates are rolled out", "Critical Patches",
        ("3 days", "5 days", "7 days", "10 days", "14 days"), False,
        "Critical security patches are installed on all servers within {v} of release.",
        ("How fast must urgent fixes from vendors reach our machines?", "What is the deadline for applying severe vulnerability updates?",
         "Within what time are the most serious updates rolled out?"),
        ("How fast did urgent fixes from vendors have to reach our machines {when}?", "What was the deadline for applying severe vulnerability updates {when}?",
         "{when}, within what time were the most serious updates rolled out?"),
        "critical patches go out within {v}",
        "Vendor fixes for severe vulnerabilities reach every server no later than {v} after they are published.",
        "Non-critical updates are bundled and installed on the servers every {v}.",
    ),
    PolicySpec(
        "wellbeing-days", "Wellbeing Days Policy", 0, "extra days off for rest and health", "Wellbeing Days",
        ("1 day", "2 days", "3 days", "4 days"), False,
        "On top of holidays, everyone may take {v} off each year to rest.",
        ("How many extra rest days are there beyond vacation?", "What is the annual number of mental-health days?",
         "How much additional time to recharge does each person get per year?"),
        ("How many extra rest days were there beyond vacation {when}?", "What was the annual number of mental-health days {when}?",
         "{when}, how much additional time to recharge did each person get per year?"),
        "we get {v} of wellbeing leave",
        "Besides regular vacation, each of us gets {v} a year as wellbeing leave.",
        "The wellbeing team organises a retreat of {v} each year for volunteers.",
    ),
    PolicySpec(
        "gift-limit", "Gifts and Hospitality Policy", 6, "accepting gifts from business partners", "Gift Value",
        ("EUR 25", "EUR 35", "EUR 50", "EUR 75", "EUR 100"), True,
        "Gifts from suppliers or customers worth more than {v} must be declared to Legal.",
        ("From what value must a present from a vendor be reported?", "What is the threshold for declaring a client's gift?",
         "How pricey can a supplier's present be before compliance hears about it?"),
        ("From what value did a present from a vendor have to be reported {when}?", "What was the threshold for declaring a client's gift {when}?",
         "{when}, how pricey could a supplier's present be before compliance heard about it?"),
        "gifts over {v} must be declared",
        "Anything a vendor or client gives you that is valued above {v} has to be reported to the legal team.",
        "Client dinners costing more than {v} per person need a manager's approval.",
    ),
)

EVAL_CHAT_FRAMES = (
    "Quick reminder for everyone: {claim}, nothing has changed there.",
    "Just checked with a colleague and {claim}, same as always.",
    "For the new folks asking: {claim}.",
    "FYI {claim}, in case anyone was wondering.",
)
EVAL_MEETING_FRAMES = (
    "It was mentioned that {claim}; no change planned.",
    "Reminder given to the team: {claim}.",
    "Agreed to keep in mind that {claim}.",
)
EVAL_CHAT_REPLIES = (
    "Thanks, that is what I thought.",
    "Good to know, I will plan with that.",
    "Perfect, thanks for clarifying that so quickly.",
    "Great, I will tell the rest of my team.",
)
CALIBRATION_CHAT_FRAMES = (
    "Heads up: {claim}, still true as far as I know.",
    "Someone asked in standup, so: {claim}.",
    "As far as I remember {claim}.",
)
CALIBRATION_MEETING_FRAMES = (
    "Noted during the discussion: {claim}.",
    "The lead confirmed that {claim}.",
)
CALIBRATION_CHAT_REPLIES = ("Noted, thank you.", "Ok, makes sense.", "Thanks for the heads up.")

CHANNELS = ("general", "people-questions", "ask-finance", "engineering", "random", "office-life")
FIRST_NAMES = ("Aylin", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jakub", "Kofi", "Lea",
               "Marta", "Niko", "Olga", "Pedro", "Quinn", "Rosa", "Stefan", "Tariq", "Ulla", "Viktor", "Wanda", "Yusuf")
LAST_NAMES = ("Albers", "Bianchi", "Castro", "Dahl", "Eriksen", "Fontaine", "Gruber", "Horvat", "Ivanova", "Jansen",
              "Kowalski", "Lopes", "Moreau", "Nakamura", "Olsen", "Petrov", "Quiroga", "Rossi", "Schmitt", "Tanaka")
STREETS = ("Harbour Road", "Mill Lane", "Station Square", "Linden Avenue", "Quay Street", "Castle Hill", "Market Row", "River Walk")


@dataclass(frozen=True)
class FactFamily:
    """Stable facts of one kind (an office's address, a team's lead): one note per entity, never versioned.

    ``value`` is a pattern: ``{n}`` a number from ``low`` to ``high``, ``{choice}`` one of
    ``choices``, ``{street}`` a street, ``{person}`` a made-up name.
    """

    key: str
    folder: str
    title: str  # with {e}
    source_type: str | None
    entities: tuple[str, ...]
    fact: str  # with {e} and {v}
    context: str  # a second passage of the same note, with {e}
    asks: tuple[str, ...]  # with {e}
    value: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0


EVAL_FACT_FAMILIES: tuple[FactFamily, ...] = (
    FactFamily(
        "office-address", "offices", "{e} Office", "wiki", ("Hamburg", "Lisbon", "Krakow", "Toronto", "Nairobi", "Osaka"),
        "The {e} office is located at {v}, on the third floor.",
        "Visitors to the {e} office sign in at reception and receive a day badge; desks are booked in the workplace app.",
        ("Where is our site in {e}?", "What is the street address of the branch in {e}?", "How do I find the {e} premises, what is the address?"),
        "{n} {street}", low=2, high=98,
    ),
    FactFamily(
        "team-lead", "teams", "{e} Team", "wiki", ("Platform", "Payments", "Data", "Mobile", "Growth", "Support"),
        "The {e} team is led by {v}, who also owns its hiring plan.",
        "The {e} team runs a weekly planning meeting on Mondays and publishes its roadmap in the wiki.",
        ("Who heads the {e} group?", "Who is in charge of the {e} crew?", "Who manages the people in {e}?"),
        "{person}",
    ),
    FactFamily(
        "service-db", "systems", "{e} Service", "technical_doc", ("Ingestion", "Billing", "Search", "Notifications", "Scheduler", "Reporting"),
        "The {e} service stores its data in {v}.",
        "The {e} service is deployed twice a week through the standard pipeline and is watched on the main dashboard.",
        ("Which datastore sits behind the {e} system?", "What storage engine does {e} persist its records in?", "What database backs {e}?"),
        "{choice}", choices=("PostgreSQL", "ClickHouse", "Cassandra", "MongoDB", "Redis", "Elasticsearch", "DynamoDB", "MySQL"),
    ),
    FactFamily(
        "room-capacity", "facilities", "{e} Meeting Room", None, ("Aurora", "Basalt", "Cedar", "Delta", "Ember", "Fjord"),
        "Meeting room {e} seats {v} people and has a video conferencing screen.",
        "Meeting room {e} can be booked in the calendar; please clean the whiteboard after use.",
        ("How many people fit in the {e} room?", "What is the capacity of {e}?", "How large a group can meet in {e}?"),
        "{choice}", choices=("4", "6", "8", "10", "12", "14", "16", "20", "24"),
    ),
    FactFamily(
        "support-line", "contacts", "{e}", "wiki", ("IT Helpdesk", "Facilities Desk", "Payroll Office", "Security Desk", "Travel Desk"),
        "The {e} can be reached on internal extension {v} during office hours.",
        "The {e} answers tickets in the service portal within one working day.",
        ("What number do I dial to reach the {e}?", "Which phone line belongs to the {e}?", "How do I call the {e}?"),
        "{n}", low=300, high=899,
    ),
    FactFamily(
        "guest-wifi", "offices", "Guest Wi-Fi {e}", None, ("Hamburg", "Lisbon", "Krakow", "Toronto", "Nairobi", "Osaka"),
        "The guest wireless network in {e} is called {v}; the password is printed at reception.",
        "Guest network access in {e} is limited to internet traffic and expires at midnight.",
        ("What is the visitor Wi-Fi name in {e}?", "Which wireless network should guests join at the {e} site?", "What SSID do visitors use in {e}?"),
        "{choice}-Guest-{n}", choices=("Falcon", "Harbor", "Maple", "Comet", "Granite", "Willow", "Nimbus", "Cobalt", "Juniper", "Orbit"), low=10, high=99,
    ),
)

CALIBRATION_FACT_FAMILIES: tuple[FactFamily, ...] = (
    FactFamily(
        "car-park", "sites", "{e} Car Park", "wiki", ("Porto", "Gdansk", "Vancouver", "Mombasa", "Sapporo", "Valencia"),
        "The {e} car park has {v} spaces reserved for employees.",
        "The {e} car park is open from six in the morning; the barrier opens with the staff badge.",
        ("How many staff parking bays are there at {e}?", "How big is the employee parking at {e}?", "How many cars can colleagues park at {e}?"),
        "{n}", low=20, high=200,
    ),
    FactFamily(
        "project-sponsor", "projects", "{e} Project", "wiki", ("Atlas", "Beacon", "Compass", "Drift", "Echo", "Harvest"),
        "The {e} project is sponsored by {v}, who signs off its budget.",
        "The {e} project reports progress in the monthly steering committee.",
        ("Who backs the {e} initiative?", "Which executive stands behind {e}?", "Who is the sponsor of {e}?"),
        "{person}",
    ),
    FactFamily(
        "api-port", "apis", "{e} API", "technical_doc", ("Orders", "Invoices", "Catalog", "Accounts", "Shipping", "Ratings"),
        "The {e} API listens on port {v} inside the cluster.",
        "The {e} API is versioned in its URL path and documented in the developer portal.",
        ("On which port does the {e} interface answer?", "What port should I call to reach {e}?", "Where in the cluster is {e} listening?"),
        "{n}", low=8000, high=8999,
    ),
)


@dataclass(frozen=True)
class IdentifierFamily:
    """Notes named by an identifier (an error code, a ticket, a host, a made-up product) that only the id tells apart.

    Each note is one passage (the fact, then ``context`` in the same paragraph), so a first hit
    on the right note is the answer: these questions measure finding the identifier, while
    near misses inside a note are the long notes' part.

    ``id_pattern`` has ``{d4}`` (four digits, never a year), ``{d2}`` (two digits) and
    ``{word}`` (one of ``words``); ``values`` are the answers, one per note.
    """

    key: str
    folder: str
    title: str  # with {id}
    id_pattern: str
    fact: str  # with {id} and {v}
    context: str  # a second sentence, with {id}
    values: tuple[str, ...]
    asks: tuple[str, ...]  # with {id}
    words: tuple[str, ...] = ()


EVAL_IDENTIFIERS: tuple[IdentifierFamily, ...] = (
    IdentifierFamily(
        "error-code", "runbooks/errors", "Error {id}", "KX-{d4}",
        "When {id} appears in the upload service logs, it means {v}.",
        "Check the upload dashboard first; if {id} keeps coming back, page whoever is on call.",
        ("the customer's storage quota is used up", "the signing certificate has expired", "the virus scanner timed out",
         "the file name contains characters we reject", "the upload was cut off before the last part arrived",
         "the regional object store refused the write", "the request carried a token for another tenant",
         "the checksum of the file did not match"),
        ("What is the meaning of {id}?", "What has gone wrong when I see {id}?", "What does the code {id} tell us?"),
    ),
    IdentifierFamily(
        "ticket", "tickets", "{id}", "OPS-{d4}",
        "The outage tracked in {id} was caused by {v}.",
        "{id} was closed after the postmortem; follow-up actions live on the team board.",
        ("an expired TLS certificate on the load balancer", "a full disk on the primary database", "a bad feature flag rolled out to every customer",
         "a DNS record deleted by a cleanup script", "a memory leak in the image resizer", "a network partition between two zones",
         "a misconfigured rate limit on the public API", "a cron job that ran twice at midnight"),
        ("What caused the incident in {id}?", "What was the root cause behind {id}?", "Why did things break in {id}?"),
    ),
    IdentifierFamily(
        "hostname", "infrastructure/hosts", "{id}", "{word}-{d2}.fra.kestrel.internal",
        "The machine {id} runs {v}.",
        "{id} is patched on the second Tuesday of each month and is monitored by the platform team.",
        ("the nightly billing export", "the search indexer", "the customer email queue", "the metrics database",
         "the image thumbnail workers", "the internal package mirror", "the VPN gateway for contractors", "the feature flag service"),
        ("What is {id} used for?", "Which workload lives on {id}?", "What does the server {id} do?"),
        words=("srv", "node", "host", "box"),
    ),
    IdentifierFamily(
        "product", "products", "{id}", "{word}",
        "{id} is our internal tool for {v}.",
        "{id} was built by the platform team; access is requested through the IT portal.",
        ("approving supplier invoices", "booking desks in the office", "tracking laptop loans", "scheduling customer demos",
         "collecting expense receipts", "planning on-call rotas", "requesting security reviews", "ordering office supplies"),
        ("What is {id} for?", "What do people use {id} to do?", "What job does {id} handle for us?"),
        words=("Vontrella", "Quorbix", "Zelminth", "Travik", "Ombrelo", "Kessaly", "Drunvi", "Plexora", "Yartune", "Fenwyx"),
    ),
)

CALIBRATION_IDENTIFIERS: tuple[IdentifierFamily, ...] = (
    IdentifierFamily(
        "alert-rule", "monitoring/alerts", "Alert {id}", "ALR-{d4}",
        "Alert {id} fires when {v}.",
        "Alert {id} is routed to the primary on-call rotation with a five-minute delay.",
        ("the checkout error rate passes two percent", "the replication lag exceeds a minute", "a certificate expires within a week",
         "the job queue holds more than ten thousand items", "free memory on a worker drops under five percent",
         "the login service answers slower than a second"),
        ("When does {id} go off?", "What condition triggers {id}?", "What is {id} watching for?"),
    ),
    IdentifierFamily(
        "purchase-order", "finance/orders", "{id}", "PO-{d4}{d2}",
        "Purchase order {id} covers {v}.",
        "{id} was approved in the procurement tool and is paid in two instalments.",
        ("forty standing desks for the new floor", "a year of cloud backup storage", "the security audit by an outside firm",
         "replacement batteries for the UPS", "translation of the customer handbook", "catering for the summer party"),
        ("What was bought with {id}?", "What does the order {id} pay for?", "What is {id} about?"),
    ),
)


@dataclass(frozen=True)
class NearMiss:
    """Two facts of one section that share their words: each is the other's near miss."""

    heading: str
    facts: tuple[str, str]  # with {v}
    values: tuple[tuple[str, ...], tuple[str, ...]]
    asks: tuple[str, str]


@dataclass(frozen=True)
class LongNoteSpec:
    """A long reference note: near-miss pairs in their own sections among filler paragraphs."""

    key: str
    title: str
    folder: str
    source_type: str
    intro: str
    pairs: tuple[NearMiss, ...]
    filler: tuple[str, ...]  # sentences that pad sections and add sections of their own


EVAL_LONG_NOTES: tuple[LongNoteSpec, ...] = (
    LongNoteSpec(
        "employee-handbook", "Employee Handbook", "handbook", "wiki",
        "This handbook collects the practical rules of everyday work; the policies it mentions are the binding texts.",
        (
            NearMiss("Laptops", ("Returned laptops are wiped and reinstalled within {v} of being handed back.",
                                 "Loan laptops for visitors must be collected within {v} of the booking."),
                     (("2 working days", "3 working days", "5 working days"), ("1 working day", "4 working days", "6 working days")),
                     ("How soon is a handed-back notebook erased?", "By when must a borrowed guest computer be picked up?")),
            NearMiss("Access Badges", ("A lost badge is blocked within {v} of being reported to reception.",
                                       "A new badge is printed within {v} of the request in the portal."),
                     (("1 hour", "2 hours", "4 hours"), ("24 hours", "48 hours", "72 hours")),
                     ("How quickly is a missing pass deactivated?", "How long does it take to get a fresh pass made?")),
            NearMiss("Parking", ("Electric car chargers in the garage may be used for up to {v} at a time.",
                                 "Visitor parking spaces can be reserved for up to {v} per visit."),
                     (("2 hours", "3 hours", "4 hours"), ("5 hours", "6 hours", "8 hours")),
                     ("How long may I keep my car plugged in downstairs?", "For how long can a guest's parking spot be booked?")),
            NearMiss("Printing", ("Colour printing is limited to {v} per person each month.",
                                  "Large-format posters are limited to {v} per team each month."),
                     (("100 pages", "200 pages", "300 pages"), ("5 sheets", "10 sheets", "15 sheets")),
                     ("What is my monthly allowance for colour prints?", "How many poster sheets may a team produce per month?")),
        ),
        ("Ask your manager when something here is unclear.", "The handbook is reviewed once a year by the people team.",
         "Suggestions for changes can be sent through the feedback form.", "Older versions are kept in the archive folder.",
         "Local rules of an office may add to this page but never contradict it.", "Everyone is expected to read this page in their first week.",
         "Links to the full policies are at the end of each section.", "Team leads explain the sections that matter most to their teams."),
    ),
    LongNoteSpec(
        "it-onboarding", "IT Onboarding Guide", "it", "technical_doc",
        "This guide walks new colleagues and their managers through the IT setup, from the first account to the last day.",
        (
            NearMiss("Accounts", ("New accounts are created {v} before the start date.",
                                  "Accounts of leavers are disabled {v} after the last working day."),
                     (("2 days", "3 days", "5 days"), ("1 day", "7 days", "14 days")),
                     ("How early before someone starts is their login set up?", "How long after their final day is a leaver's login switched off?")),
            NearMiss("Software Licences", ("Licences for design software are approved within {v}.",
                                           "Licences for developer tools are approved within {v}."),
                     (("1 week", "2 weeks", "3 weeks"), ("1 day", "2 days", "4 days")),
                     ("How long does sign-off for a graphics program take?", "How fast are programming tools granted?")),
            NearMiss("Phones", ("Company phones are shipped to new joiners within {v} of signing the contract.",
                                "Broken company phones are swapped within {v} at the IT desk."),
                     (("5 days", "10 days", "15 days"), ("1 day", "2 days", "3 days")),
                     ("How soon does a newcomer receive a work mobile?", "How quickly is a damaged work mobile exchanged?")),
            NearMiss("VPN", ("VPN sessions disconnect after {v} without traffic.",
                             "VPN certificates must be renewed every {v}."),
                     (("15 minutes", "30 minutes", "60 minutes"), ("6 months", "12 months", "24 months")),
                     ("After how much idle time does the remote network connection drop?", "How often must the certificate for remote access be refreshed?")),
        ),
        ("The IT desk is on the second floor next to the kitchen.", "Most requests go through the service portal.",
         "Hardware is delivered to the office unless a home address is given.", "Passwords are never sent by email.",
         "Security training is part of the first month.", "Managers approve requests for their teams.",
         "Shared mailboxes are requested like any other account.", "Guests get a separate network and no company account."),
    ),
    LongNoteSpec(
        "office-manual", "Office Operations Manual", "workplace", "wiki",
        "This manual describes how the office runs day to day, for everyone who works in it.",
        (
            NearMiss("Kitchen", ("Food left in the kitchen fridge is thrown away every {v}.",
                                 "Coffee beans are reordered every {v} by the office team."),
                     (("Friday", "Thursday", "Wednesday"), ("Monday", "Tuesday")),
                     ("On which day is the fridge cleared out?", "When does the office team order more coffee?")),
            NearMiss("Meeting Rooms", ("Meeting rooms can be booked at most {v} in advance.",
                                       "Unused bookings are released after {v} if nobody checks in."),
                     (("2 weeks", "4 weeks", "8 weeks"), ("10 minutes", "15 minutes", "20 minutes")),
                     ("How far ahead may I reserve a conference room?", "When does a booked room go back to the pool if no one shows up?")),
            NearMiss("Deliveries", ("Parcels for employees are held at reception for {v}.",
                                    "Pallets for the warehouse are held at the loading bay for {v}."),
                     (("5 days", "7 days", "10 days"), ("2 days", "3 days", "4 days")),
                     ("How long does the front desk keep a personal package?", "How long do pallet shipments wait at the dock?")),
            NearMiss("Heating and Cooling", ("The heating switches on when the office falls below {v}.",
                                             "The air conditioning switches on when the office rises above {v}."),
                     (("18 degrees", "19 degrees", "20 degrees"), ("24 degrees", "25 degrees", "26 degrees")),
                     ("At what temperature does the building warm itself up?", "From which temperature does the cooling start?")),
        ),
        ("The office opens at seven and closes at eight in the evening.", "Cleaning happens after six every weekday.",
         "Report broken furniture to the workplace team.", "Quiet zones are marked with green signs.",
         "Plants are watered by an outside service on Mondays.", "Lockers are assigned for a year at a time.",
         "The first-aid kit is next to the main entrance.", "Fire drills take place twice a year."),
    ),
)

CALIBRATION_LONG_NOTES: tuple[LongNoteSpec, ...] = (
    LongNoteSpec(
        "finance-handbook", "Finance Handbook", "finance", "wiki",
        "This page explains how money moves through the company, for budget owners and their teams.",
        (
            NearMiss("Invoices", ("Supplier invoices are paid within {v} of approval.",
                                  "Customer invoices are sent within {v} of delivery."),
                     (("14 days", "21 days", "30 days"), ("2 days", "5 days", "7 days")),
                     ("How soon do vendors get their money after sign-off?", "How long after delivery do clients receive a bill?")),
            NearMiss("Cards", ("Corporate credit cards have a monthly limit of {v}.",
                               "Fuel cards have a monthly limit of {v}."),
                     (("EUR 2,000", "EUR 3,000", "EUR 5,000"), ("EUR 300", "EUR 400", "EUR 500")),
                     ("What is the most I can charge per month on the company credit card?", "What is the monthly cap on the petrol card?")),
            NearMiss("Cash", ("Petty cash boxes hold at most {v}.", "Event floats hold at most {v}."),
                     (("EUR 200", "EUR 250", "EUR 300"), ("EUR 600", "EUR 800", "EUR 1,000")),
                     ("How much money may sit in the petty cash tin?", "What is the largest float for an event?")),
        ),
        ("Budget owners see their spending in the finance dashboard.", "The books close on the fifth working day of each month.",
         "Questions go to the finance mailbox.", "Receipts are kept for ten years.", "Travel costs follow their own policy."),
    ),
)


@dataclass(frozen=True)
class RuleSpec:
    """A yes/no rule of an office, and the ways a later note can deny or repeat it."""

    key: str
    title: str  # with {e}
    fact: str  # with {e}
    negated: str  # the same sentence, negated
    denied: str  # the rule denied in other words
    agreeing: str  # the rule repeated in other words
    entities: tuple[str, ...] = ("Hamburg", "Lisbon", "Krakow", "Toronto", "Nairobi", "Osaka")


EVAL_RULES: tuple[RuleSpec, ...] = (
    RuleSpec(
        "dogs", "Dogs at the {e} Office",
        "Dogs are welcome in the {e} office as long as they stay on a lead.",
        "Dogs are not welcome in the {e} office, even on a lead.",
        "Please leave dogs at home: animals of any kind are barred from the {e} office now.",
        "Good news for owners: a dog on a lead may come along to the {e} office.",
    ),
    RuleSpec(
        "bicycles", "Bicycles at the {e} Office",
        "Employees may bring their bicycles into the {e} office building and park them by the stairs.",
        "Employees may not bring their bicycles into the {e} office building or park them by the stairs.",
        "Bikes have to stay outside in the courtyard racks; they are banned inside the {e} building.",
        "Yes, you can wheel your bike into the {e} building and leave it near the stairs.",
    ),
    RuleSpec(
        "smoking", "Roof Terrace of the {e} Office",
        "Smoking is allowed on the roof terrace of the {e} office.",
        "Smoking is not allowed on the roof terrace of the {e} office.",
        "The roof terrace in {e} became a smoke-free zone and cigarettes are banned up there.",
        "Smokers can still use the roof terrace in {e} for a cigarette.",
    ),
    RuleSpec(
        "friday-lunch", "Friday Lunch in {e}",
        "Registered guests may join the Friday team lunch at the {e} office.",
        "Registered guests may not join the Friday team lunch at the {e} office.",
        "The Friday lunch in {e} is for staff only from now on; visitors eat elsewhere.",
        "Visitors who signed in at reception are welcome at the Friday lunch in {e}.",
    ),
)


CALIBRATION_CITIES = ("Porto", "Vilnius", "Leeds", "Lyon", "Gdansk", "Bergen")
CALIBRATION_RULES: tuple[RuleSpec, ...] = (
    RuleSpec(
        "garage", "Parking at the {e} Office",
        "Staff may park in the {e} office garage free of charge.",
        "Staff may not park in the {e} office garage free of charge.",
        "The garage under the {e} office is reserved for visitors now; employees have to find a space elsewhere.",
        "Parking in the {e} garage costs employees nothing.",
        CALIBRATION_CITIES,
    ),
    RuleSpec(
        "late-guests", "Visitors after Hours in {e}",
        "Guests may stay in the {e} office after 8 pm if their host is with them.",
        "Guests may not stay in the {e} office after 8 pm, even if their host is with them.",
        "Once it is 8 pm every visitor has to leave the {e} building, host or no host.",
        "With their host beside them, guests are fine to remain in the {e} office past 8 pm.",
        CALIBRATION_CITIES,
    ),
    RuleSpec(
        "kitchen-music", "Music in the {e} Kitchen",
        "Playing music through the speakers is allowed in the {e} office kitchen.",
        "Playing music through the speakers is not allowed in the {e} office kitchen.",
        "The speakers in the {e} kitchen stay silent from now on: headphones only.",
        "Feel free to put music on over the speakers in the {e} kitchen.",
        CALIBRATION_CITIES,
    ),
    RuleSpec(
        "desk-booking", "Desk Booking in {e}",
        "Desks in the {e} office can be booked in advance through the room app.",
        "Desks in the {e} office cannot be booked in advance through the room app.",
        "In {e} it is first come, first served: reserving a desk ahead was switched off.",
        "You can reserve a desk in {e} ahead of time in the room app.",
        CALIBRATION_CITIES,
    ),
)


@dataclass(frozen=True)
class Catalogue:
    name: str
    company: str
    owners: tuple[Person, ...]
    policies: tuple[PolicySpec, ...]
    facts: tuple[FactFamily, ...]
    identifiers: tuple[IdentifierFamily, ...]
    long_notes: tuple[LongNoteSpec, ...]
    rules: tuple[RuleSpec, ...]
    chat_frames: tuple[str, ...]
    meeting_frames: tuple[str, ...]
    chat_replies: tuple[str, ...]

    def topics(self) -> set[str]:
        """Every subject the questions and notes are about, by key and by name."""
        named = [(p.key, p.name) for p in self.policies] + [(f.key, f.title) for f in self.facts]
        named += [(i.key, i.title) for i in self.identifiers] + [(n.key, n.title) for n in self.long_notes]
        named += [(r.key, r.title) for r in self.rules]
        parts = (re.sub(r"\{\w+\}", "", part).strip().lower() for pair in named for part in pair)
        return {part for part in parts if part}

    def templates(self) -> set[str]:
        """Every question template (before a value, entity, identifier or date is filled in)."""
        found: set[str] = set()
        for p in self.policies:
            found.update(p.asks)
            found.update(p.asked)
        for family in (*self.facts, *self.identifiers):
            found.update(family.asks)
        for note in self.long_notes:
            for pair in note.pairs:
                found.update(pair.asks)
        return {t.lower() for t in found}


EVALUATION = Catalogue(
    "evaluation", "Kestrel Dynamics", OWNERS, EVAL_POLICIES, EVAL_FACT_FAMILIES, EVAL_IDENTIFIERS, EVAL_LONG_NOTES, EVAL_RULES,
    EVAL_CHAT_FRAMES, EVAL_MEETING_FRAMES, EVAL_CHAT_REPLIES,
)
CALIBRATION = Catalogue(
    "calibration", "Larkspur Analytics",
    (Person("Noor Haddad", "Head of People"), Person("Lukas Brandt", "Finance Controller"), Person("Aiko Mori", "Security Lead"),
     Person("Tomas Ferreira", "Head of Engineering"), Person("Greta Lindqvist", "Office Manager"), Person("Oluwaseun Adeyemi", "IT Lead"),
     Person("Clara Moreau", "General Counsel")),
    CALIBRATION_POLICIES, CALIBRATION_FACT_FAMILIES, CALIBRATION_IDENTIFIERS, CALIBRATION_LONG_NOTES, CALIBRATION_RULES,
    CALIBRATION_CHAT_FRAMES, CALIBRATION_MEETING_FRAMES, CALIBRATION_CHAT_REPLIES,
)


def overlap(a: Catalogue, b: Catalogue) -> dict:
    """What two catalogues share: topics and question templates (both 0 for calibration vs evaluation)."""
    return {"shared_topics": len(a.topics() & b.topics()), "shared_templates": len(a.templates() & b.templates())}
