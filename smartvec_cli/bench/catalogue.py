"""What the generated benchmark vault talks about: versioned policies and stable facts.

Every policy names one value that changes over the years (a number of days, an amount of
money), the sentence a policy note uses for it, and questions that ask for it in other
words: a question never copies the note's sentence, so retrieval has to understand the
question rather than match its wording. ``claim`` is how a chat message or a meeting note
repeats a value, which the generator uses to inject outdated restatements.
"""

from __future__ import annotations

from dataclasses import dataclass

COMPANY = "Kestrel Dynamics"


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
    owner: int  # index into OWNERS
    topic: str  # completes "This policy describes ..."
    heading: str  # the section that holds the value
    values: tuple[str, ...]  # in increasing order
    ordered: bool  # True: each version raises the value (money); False: it may go either way
    fact: str  # the note's sentence, with {v}
    asks: tuple[str, ...]  # present-tense paraphrases
    asked: tuple[str, ...]  # past-tense paraphrases; {when} is where a date phrase goes
    claim: str  # how a chat message states it, with {v}


POLICIES: tuple[PolicySpec, ...] = (
    PolicySpec(
        "remote-work", "Remote Work Policy", 0, "when employees may work away from the office", "Working from Home",
        ("1 day", "2 days", "3 days", "4 days", "5 days"), False,
        "Employees may work from home on up to {v} per week, agreed with their team lead.",
        ("How many days a week am I allowed to work remotely?", "What is the weekly limit for home-office days?",
         "How often can staff do their job from home each week?"),
        ("How many days a week were staff allowed to work remotely {when}?", "What was the weekly limit for home-office days {when}?",
         "{when}, how often could people do their job from home each week?"),
        "we can work from home {v} a week",
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
    ),
    PolicySpec(
        "home-office", "Home Office Equipment Policy", 0, "the equipment employees may buy for working at home", "Equipment Budget",
        ("EUR 300", "EUR 400", "EUR 500", "EUR 600", "EUR 750", "EUR 900", "EUR 1,000"), True,
        "Every employee may claim a one-off equipment budget of {v} for a desk, a chair and a monitor at home.",
        ("How much can I spend on furniture for working at home?", "What is the budget for setting up a home workspace?",
         "How much does the company pay towards a desk and screen for my flat?"),
        ("How much could staff spend on furniture for working at home {when}?", "What was the budget for setting up a home workspace {when}?",
         "{when}, how much did the company pay towards a desk and screen at home?"),
        "the home office budget is {v}",
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
    ),
)

CHAT_FRAMES = (
    "Quick reminder for everyone: {claim}, nothing has changed there.",
    "Just checked with a colleague and {claim}, same as always.",
    "For the new folks asking: {claim}.",
    "FYI {claim}, in case anyone was wondering.",
)
MEETING_FRAMES = (
    "It was mentioned that {claim}; no change planned.",
    "Reminder given to the team: {claim}.",
    "Agreed to keep in mind that {claim}.",
)
CHAT_REPLIES = (
    "Thanks, that is what I thought.",
    "Good to know, I will plan with that.",
    "Perfect, thanks for clarifying that so quickly.",
    "Great, I will tell the rest of my team.",
)
CHANNELS = ("general", "people-questions", "ask-finance", "engineering", "random", "office-life")
FIRST_NAMES = ("Aylin", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jakub", "Kofi", "Lea",
               "Marta", "Niko", "Olga", "Pedro", "Quinn", "Rosa", "Stefan", "Tariq", "Ulla", "Viktor", "Wanda", "Yusuf")
LAST_NAMES = ("Albers", "Bianchi", "Castro", "Dahl", "Eriksen", "Fontaine", "Gruber", "Horvat", "Ivanova", "Jansen",
              "Kowalski", "Lopes", "Moreau", "Nakamura", "Olsen", "Petrov", "Quiroga", "Rossi", "Schmitt", "Tanaka")


@dataclass(frozen=True)
class FactFamily:
    """Stable facts of one kind (an office's address, a team's lead): one note per entity, never versioned."""

    key: str
    folder: str
    title: str  # with {e}
    source_type: str | None
    entities: tuple[str, ...]
    fact: str  # with {e} and {v}
    context: str  # a second passage of the same note, with {e}
    asks: tuple[str, ...]  # with {e}


STREETS = ("Harbour Road", "Mill Lane", "Station Square", "Linden Avenue", "Quay Street", "Castle Hill", "Market Row", "River Walk")
DATABASES = ("PostgreSQL", "ClickHouse", "Cassandra", "MongoDB", "Redis", "Elasticsearch", "DynamoDB", "MySQL")
WIFI_WORDS = ("Falcon", "Harbor", "Maple", "Comet", "Granite", "Willow", "Nimbus", "Cobalt", "Juniper", "Orbit")

FACT_FAMILIES: tuple[FactFamily, ...] = (
    FactFamily(
        "office-address", "offices", "{e} Office", "wiki", ("Hamburg", "Lisbon", "Krakow", "Toronto", "Nairobi", "Osaka"),
        "The {e} office is located at {v}, on the third floor.",
        "Visitors to the {e} office sign in at reception and receive a day badge; desks are booked in the workplace app.",
        ("Where is our site in {e}?", "What is the street address of the branch in {e}?", "How do I find the {e} premises, what is the address?"),
    ),
    FactFamily(
        "team-lead", "teams", "{e} Team", "wiki", ("Platform", "Payments", "Data", "Mobile", "Growth", "Support"),
        "The {e} team is led by {v}, who also owns its hiring plan.",
        "The {e} team runs a weekly planning meeting on Mondays and publishes its roadmap in the wiki.",
        ("Who heads the {e} group?", "Who is in charge of the {e} crew?", "Who manages the people in {e}?"),
    ),
    FactFamily(
        "service-db", "systems", "{e} Service", "technical_doc", ("Ingestion", "Billing", "Search", "Notifications", "Scheduler", "Reporting"),
        "The {e} service stores its data in {v}.",
        "The {e} service is deployed twice a week through the standard pipeline and is watched on the main dashboard.",
        ("Which datastore sits behind the {e} system?", "What storage engine does {e} persist its records in?", "What database backs {e}?"),
    ),
    FactFamily(
        "room-capacity", "facilities", "{e} Meeting Room", None, ("Aurora", "Basalt", "Cedar", "Delta", "Ember", "Fjord"),
        "Meeting room {e} seats {v} people and has a video conferencing screen.",
        "Meeting room {e} can be booked in the calendar; please clean the whiteboard after use.",
        ("How many people fit in the {e} room?", "What is the capacity of {e}?", "How large a group can meet in {e}?"),
    ),
    FactFamily(
        "support-line", "contacts", "{e}", "wiki", ("IT Helpdesk", "Facilities Desk", "Payroll Office", "Security Desk", "Travel Desk"),
        "The {e} can be reached on internal extension {v} during office hours.",
        "The {e} answers tickets in the service portal within one working day.",
        ("What number do I dial to reach the {e}?", "Which phone line belongs to the {e}?", "How do I call the {e}?"),
    ),
    FactFamily(
        "guest-wifi", "offices", "Guest Wi-Fi {e}", None, ("Hamburg", "Lisbon", "Krakow", "Toronto", "Nairobi", "Osaka"),
        "The guest wireless network in {e} is called {v}; the password is printed at reception.",
        "Guest network access in {e} is limited to internet traffic and expires at midnight.",
        ("What is the visitor Wi-Fi name in {e}?", "Which wireless network should guests join at the {e} site?", "What SSID do visitors use in {e}?"),
    ),
)
