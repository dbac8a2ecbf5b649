/// Text the generator draws from: several scripts (Latin with accents, CJK, Cyrillic,
/// Greek, Arabic), emoji, and the characters TEXT escaping must handle (, ; \ newline).
enum TextPool {
    struct Person { let name: String; let mail: String }

    static let people: [Person] = [
        Person(name: "Zoë Müller", mail: "zoe.mueller@example.com"),
        Person(name: "José Álvarez", mail: "jose.alvarez@example.es"),
        Person(name: "François Lefèvre", mail: "f.lefevre@example.fr"),
        Person(name: "Søren Kierkegård", mail: "soren@example.dk"),
        Person(name: "山田 太郎", mail: "taro.yamada@example.jp"),
        Person(name: "王小明", mail: "xiaoming.wang@example.cn"),
        Person(name: "Ирина Петрова", mail: "irina.petrova@example.ru"),
        Person(name: "Αλέξανδρος Παπαδόπουλος", mail: "alex.p@example.gr"),
        Person(name: "Anna Smith", mail: "anna.smith@example.com"),
        Person(name: "Dr. Priya Natarajan", mail: "priya.n@example.in"),
        Person(name: "Łukasz Wójcik", mail: "lukasz.wojcik@example.pl"),
        Person(name: "Mehmet Yılmaz", mail: "mehmet.yilmaz@example.com.tr"),
    ]

    static let summaries: [String] = [
        "Team sync", "Réunion de l'équipe", "Überprüfung der Änderungen", "週次ミーティング",
        "季度预算审查", "Piano lesson", "Code review ☕", "Sprint planning 🚀", "Zahnarzt",
        "Планёрка", "Birthday party 🎉", "1:1 with manager", "Yoga", "Conférence: «Les données»",
        "Family dinner 🍝", "Board meeting; Q3", "Standup, daily",
    ]

    static let summaryTails: [String] = [
        "", "(remote)", "— salle 3", "@ HQ", "📅", "(tentative)", "Raum 2.14", "会議室A",
    ]

    static let sentences: [String] = [
        "Please review the agenda before the meeting, and bring your notes.",
        "Merci de confirmer votre présence avant vendredi; le café sera servi à 9h.",
        "Bitte die Unterlagen zur Überprüfung mitbringen – danke schön!",
        "会議の議題を事前に確認してください。資料は共有フォルダにあります。",
        "请提前十分钟到达会议室，并准备好季度报告。",
        "Не забудьте ноутбук и зарядное устройство.",
        "Η συνάντηση θα γίνει στην αίθουσα συνεδριάσεων.",
        "سيتم إرسال جدول الأعمال قبل الاجتماع.",
        "Dial-in: +1 555 0100, PIN 4242#; backup link in the invite.",
        "🎉🎂🥳 Celebrate with us! Snacks provided 🍕🍩☕️.",
        "Path on the share: \\\\fileserver\\team\\2024\\plans (read-only).",
        "Lunch afterwards at the café «Le Petit Zinc» — reservations for 8.",
        "Kurz: Ziele, Risiken, nächste Schritte; Protokoll folgt per E-Mail.",
        "Zoom: https://example.com/j/1234567890?pwd=abcDEF, passcode 998877",
        "Agenda:\n1. Status\n2. Blockers\n3. Any other business",
        "Lección de piano: escalas, arpegios y la sonata de Mozart (K. 545).",
    ]

    static let locations: [String] = [
        "Conference Room 4B, Building 2", "Salle Mont-Blanc, 3ᵉ étage", "Besprechungsraum Süd",
        "東京本社 12階 会議室", "北京办公室 第三会议室", "Online; see description",
        "123 Main St., Springfield, IL 62701, USA", "Café Müller, Kastanienallee 5, Berlin",
    ]

    static let categories: [String] = [
        "Work", "Personal", "Work,Meeting", "Holiday", "Music,Lessons", "Health", "Travel,Work",
    ]

    static let shortNotes: [String] = [
        "imported from Exchange", "synced: 2024-05-01", "priorité haute", "優先度: 中", "🔁 weekly",
    ]

    static let reminders: [String] = [
        "Reminder", "Erinnerung", "Rappel", "リマインダー", "提醒", "⏰ Time to go!",
    ]
}
