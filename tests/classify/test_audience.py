"""Audience (TAXONOMY.md, Audience): shapes of private data and rules that only name a kind of
data (tests/quality README, the labelling decisions of each gold set)."""

from __future__ import annotations

import orjson
import pytest

from memctl.classify import classify, confidential, kin


@pytest.mark.parametrize(
    "line",
    [
        "Never write a confidential source's real name anywhere",
        "- Everything about a client or a matter is confidential. Never paste it into a chat.",
        "Anything naming a private individual accused of wrongdoing goes past the editor",
        "工作：某银行外包测试，项目保密，不聊具体项目名。",
        "> 客户信息只在这里，不外传。",
        "Reminders go to the family group only when he says so; default is private chat.",
        "Keep client files strictly confidential; never paste them into a chat.",
    ],
)
def test_a_rule_of_confidentiality_marks_nothing_private(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "私密：用户在准备跳槽。",
        "年终奖打算拿去还房贷，不要跟别人说。",
        "Keep this private: my salary",
        "This is confidential: Tom and I are splitting up",
        "Keep it confidential, she is seeing a lawyer",
        "我的病历要保密，别在群里提。",
    ],
)
def test_a_line_marked_private_stays_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "Emergency fund at 12,300 CAD as of 2026-10-01",
        "Raising a 2 M EUR round; 300k committed",
        "Monthly burn is about 41k EUR",
        "| Chequing | Tangerine | bills |",
        "- Tax: 2025 return due 2026-04-30",
        "- 司机老李 138 1234 5678，白天打",
        "- Mailgun API key: key-3f9a8b7c6d5e",
        "- Stripe key (test): sk_test_abcd1234",
        "- On leave 2–9 August, family trip to Crete.",
        "[2026-10-01 09:00] 用户的腰伤又犯了，这周少站。",
        "膝盖半月板受伤，爬山要提醒她带护膝。",
        "- Left knee a bit sore after the long run",
        "When he writes to his father's care home, keep it formal",
        "- Packhouse contract 2027: $2.10/kg for class 1 apples.",
        "- 超市预算每月 800 元",
    ],
)
def test_shapes_of_private_data_are_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- Wants numbers in CAD, rounded to the dollar",
        "- API key: required for the sync job, ask the user for one",
        "猫叫豆豆，橘猫，5 岁，肠胃不好，只吃处方粮。",
        "- 含麻黄碱的感冒药每人每次最多 2 盒，要登记身份证号。",
        "- Contract at the institute runs until 2027-08-31",
        "Never pay, transfer or sign up for anything on the family's card",
        "- 鲜牛奶进价每升 9.5 元",
    ],
)
def test_what_names_no_ones_private_data_is_public(line: str) -> None:
    assert classify(line).audience == "public"


def test_the_groom_of_the_users_wedding_is_family() -> None:
    lines = [
        "婚礼：2027-06-01 在大理办，新郎陈航。预算 20 万。",
        "陈航家定了订婚宴：12 月 20 日中午，两桌。",
    ]
    family = kin.names(lines)
    assert "陈航" in family
    assert classify(lines[1], relatives=family).audience == "private"


PHARMACY = (
    "# MEMORY.md\n\n## 慢病顾客随访\n> 顾客信息只在这里，不外传。\n"
    "- 赵阿姨：每月 5 号前后来拿药，提前一天提醒店员备货。\n"
    "- 孙先生：下次回访 12 月 10 日。\n"
    "- S3：每周三送货。\n"
    "- 九州通从 12 月起改成每周四下单。\n"
)


def test_a_file_declaring_its_clients_confidential_makes_their_lines_private() -> None:
    lines = PHARMACY.splitlines()
    assert confidential.clients(lines) == {"赵阿姨", "孙先生"}
    # Without the declaration the same titles name no one's secret.
    assert confidential.clients(line for line in lines if "不外传" not in line) == frozenset()
    # A client named by a title in a file that declares clients' records confidential.
    vet = ["Client records are confidential.", "- Mrs Walsh: pays by card, prefers evening calls"]
    assert confidential.clients(vet) == {"Walsh"}


def test_import_and_classify_agree_on_confidential_clients(tree, import_json, run, query):
    import_json(tree({"MEMORY.md": PHARMACY}))
    rows = dict(query("SELECT content, audience FROM entries"))
    assert rows["赵阿姨：每月 5 号前后来拿药，提前一天提醒店员备货。"] == "private"
    assert rows["孙先生：下次回访 12 月 10 日。"] == "private"
    # A code is no name, and a line about the supplier names no client.
    assert rows["S3：每周三送货。"] == "public"
    assert rows["九州通从 12 月起改成每周四下单。"] == "public"
    result = run("classify", "--json", "--dry-run")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changed"] == 0


@pytest.mark.parametrize(
    "line",
    [
        "- 吴老师，初三数学老师，兼任 3 班班主任",
        "Figures from the council budget papers: cite title and page",
        "[2026-10-01 12:00] 宫保鸡丁调价到 38 元，菜单已更新。",
    ],
)
def test_a_job_a_public_budget_and_a_menu_price_are_public(line: str) -> None:
    assert classify(line).audience == "public"


def test_a_childs_teacher_stays_family() -> None:
    assert classify("放学后当面跟班主任说一下作业的事").audience == "private"


# Each kind of private data TAXONOMY.md lists, in a form or a language the earlier cues missed.
@pytest.mark.parametrize(
    "line",
    [
        # family: a child or a baby as the person's own
        "Our baby is due in March",
        "宝宝每天九点睡，别在那之后打电话",
        "小孩周末上游泳课",
        # health: being ill, a doctor's word, a cycle
        "He's been sick all week, no calls before noon",
        "生病了，这周不跑步",
        "医生说要少吃盐",
        "经期前后不要安排长跑",
        # money of a person, written with no currency sign
        "Rent is 1,850 a month, due on the 1st",
        "房租每月 4500，15 号前转",
        "首付攒了 30 万",
        "Got a bonus of 12k this year",
        # an address below the city
        "Lives at 22 Harbour Rd, Fremantle",
        "Home: Flat 3, 41 Kings Parade",
        "家在万科城小区 5 栋 1202",
        "住在文三路 258 号",
        "Postcode SW1A 1AA",
        # identity numbers in their countries' shapes
        "NRIC S8812345D",
        "身份证号码 330106199001011234",
        "PPS number 1234567TA",
        "SIN 046 454 286",
        # chat and bank accounts by their ids
        "微信 lzq_beef88",
        "QQ号 12345678",
        "Telegram @lin_dev",
        "IBAN DE89 3704 0044 0532 0130 00",
        "Rent goes from the card ending 4821",
        # 2FA
        "Backup codes are in the drawer",
        "两步验证用的是 Google 身份验证器",
        "MFA on the AWS root account uses the YubiKey",
        # marked private by the line itself
        "Just between us: she is looking for a new job",
        "Keep this to yourself",
        "这是秘密，先别提",
        # second round: the forms a wider probe of each kind found missing
        "家里老人住在乡下",
        "Tom moved out last month, we split up",
        "他是同性恋，还没出柜",
        "戒酒中，不要推荐酒吧",
        "看心理咨询师，每周四",
        "体重 68 kg，目标 62",
        "Blood type O+",
        "My credit score is 720",
        "Net worth about 240k",
        "我的车牌号是浙A12345",
        "Car reg: 191-D-12345",
        "We live on Maple Avenue near the school",
        "Venmo @lin-mei",
        "My Steam id is 7656119800000000",
        "Security question answer: Fluffy",
        "私人事情，不要在群里说",
        "Don't mention this in the team channel",
        "Only mention to me in DMs",
    ],
)
def test_each_kind_of_private_data_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "Kill the child process before restarting the worker",
        "Take baby steps with the migration",
        "The Telegram bot posts at 9",
        "用 Telegram bot 推送日报",
        "Use m7i.2xlarge nodes, autoscaler max 24",
        "The rent-a-car API returns 404",
        "Kafka 3.7 upgrade tomorrow",
        "订单 12345678 已发货",
        "Store orders in table order_items",
        "The doctor's office is on the second floor",
        "She likes net worth as one number plus a one-line trend",
        "The deploy runbook is in the wiki; don't share it outside the team",
        "Use BMI calculator API v2",
        "Blood type field is optional in the form",
        "The steam boiler pressure is 2 bar",
        "We split the job into 3 batches",
        "车牌识别模块在 plate/ 目录",
    ],
)
def test_what_only_looks_like_those_kinds_is_public(line: str) -> None:
    assert classify(line).audience == "public"


def test_relatives_named_after_a_colon_or_together_are_learnt() -> None:
    lines = ["Partner: Sam, works nights", "Kids: Theo (8) and Mia (5)", "twins Ada and Max"]
    assert kin.names(lines) == {"Sam", "Theo", "Mia", "Ada", "Max"}
    assert classify("Mia's swimming is on Saturdays", relatives=kin.names(lines)).audience == (
        "private"
    )


def test_customers_called_by_a_shops_titles_are_learnt_where_declared_confidential() -> None:
    lines = [
        "> 客户信息只在这里，不外传。",
        "- 王总：下周要 200 套茶具，付款走对公账户。",
        "- 张姐：只要青瓷，孩子对釉料过敏。",
        "- Prof Whelan: collie, hip X-ray booked",
    ]
    assert confidential.clients(lines) == {"王总", "张姐", "Whelan"}
    assert confidential.clients(lines[1:]) == frozenset()  # nothing declared


@pytest.mark.parametrize(
    ("line", "audience"),
    [
        # A standing rule for every case of a kind names no one's health or money …
        ("Chart every medication within 30 minutes of giving it", "public"),
        ("For depression screening use PHQ-9", "public"),
        ("Chart every insulin dose within 30 minutes", "public"),
        ("儿童用药剂量按体重计算", "public"),
        # … one that names a person by a pronoun is about that person.
        ("Check her blood sugar before every meal", "private"),
        ("Always check my insulin dose with me before every meal", "private"),
    ],
)
def test_a_rule_for_every_case_names_no_one(line: str, audience: str) -> None:
    assert classify(line).audience == audience


@pytest.mark.parametrize(
    ("line", "section"),
    [
        # A heading naming a relative: the lines under it are that person's facts.
        ("- 每天早上 7 点吃一片，饭后", "MEMORY.md > 妈妈的降压药"),
        ("Status 2026-10-01: form sent, waiting for the reply.", "Dad's pension claim"),
        ("- Swimming on Thursdays 17:00, bring the goggles", "MEMORY.md > The kids"),
        ("- Spelling test every Friday", "Notes > My son > School"),
        # A heading naming health: the lines under it are health facts.
        ("- 眼科每年复查一次眼底", "MEMORY.md > 就诊和复查"),
        ("- Wears glasses for reading since 2024", "USER.md > Health"),
    ],
)
def test_a_line_under_a_heading_naming_a_relative_or_health_is_private(
    line: str, section: str
) -> None:
    assert classify(line).audience == "public"
    assert classify(line, section=section).audience == "private"


@pytest.mark.parametrize(
    "section",
    [
        "Ops > Health checks",
        "服务 > 健康检查",
        "Runbook > Child processes",
        "MEMORY.md > 家里的网络",
    ],
)
def test_a_heading_that_only_looks_like_a_relative_or_health_marks_nothing(section: str) -> None:
    assert classify(
        "- Every 30 s, timeout 5 s, three misses restart it", section=section
    ).audience == ("public")


def test_a_user_saying_whose_parent_they_are_introduces_the_child() -> None:
    lines = ["我是安安的爸爸，这个助手是给她写作业用的", "I'm Theo's mum; he is in Year 4"]
    assert kin.names(lines) == {"安安", "Theo"}
    found = kin.names(lines)
    assert classify("安安周五下午考英语听写", relatives=found).audience == "private"
    assert classify("Theo asked about fractions again", relatives=found).audience == "private"
    # Someone else's relative, or a job held, introduces no one.
    assert kin.names(["她是安安的妈妈", "I'm Theo's tutor on Tuesdays"]) == frozenset()


@pytest.mark.parametrize(
    "line",
    [
        "- 居留卡 2024-09 办的，有效期到 2028-09-30",
        "Applying for a work permit renewal before March",
        "- Residence permit valid until 2027-06-30",
        "- Aktenzeichen 51.3-EV-7730215",
        "Home insurance: policy HX-4471902, renews every May",
        "- 法院案号 2026-0113 已经收到",
        "We got engaged in Porto last summer",
        "They have lived together since 2019",
        "上周领证了，周末请两家人吃饭",
    ],
)
def test_permits_case_numbers_and_a_couples_life_are_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "Pay with the Visa card, it expires in 2027",
        "Cite the reference number (FOI-2026-04418 style) and the date received",
        "Set the retention policy to 30 days",
        "德语官方用语保留德语，例如 Niederlassungserlaubnis（永久居留）",
    ],
)
def test_a_card_brand_or_a_rule_naming_a_number_is_public(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    ("line", "audience"),
    [
        ("托班每月 3500，还在比较两家", "private"),
        ("看了两家月嫂中心，每月 1.5 万起", "private"),
        ("Childminder is 900 a month from January", "private"),
        # A day of the month or a count is no price.
        ("每月 5 号提醒我交物业费", "public"),
        ("每月 300 次调用上限", "public"),
        ("Backups run 3 times a month", "public"),
    ],
)
def test_a_price_by_the_month_without_a_sign_is_a_persons_money(line: str, audience: str) -> None:
    assert classify(line).audience == audience


@pytest.mark.parametrize(
    ("line", "audience"),
    [
        ("- `private/` holds the scans; it is in .gitignore, never commit it", "public"),
        ("Originals go under scans/private/ and stay out of git", "public"),
        # A line marked private keeps its mark.
        ("Keep this private: the scans are of my divorce papers", "private"),
    ],
)
def test_a_folder_named_private_is_no_mark(line: str, audience: str) -> None:
    assert classify(line).audience == audience


def test_a_relative_of_someone_named_is_not_the_users_relative() -> None:
    # "小宇的妈妈王蕾": 王蕾 is 小宇's mother, said by the user about herself; the user's own name
    # is no relative of hers, and 小宇 (whose mother she is) is her child.
    lines = ["- 用户：小宇的妈妈王蕾，小宇今年初二", "Theo's dad Sam picks him up on Fridays"]
    found = kin.names(lines)
    assert "王蕾" not in found and "Sam" not in found
    assert classify("王蕾喜欢简短的回答", relatives=found).audience == "public"
    # The kinship word with no one named before it still introduces its name.
    assert kin.names(["女儿王丽在深圳", "Partner Sam, son Theo"]) == {"王丽", "Sam", "Theo"}


@pytest.mark.parametrize(
    "line",
    [
        "- 要汇款、打款的事一律不办，让她自己去银行",
        "- 妈妈的检查结果不要发到亲戚群，只发给我",
        "Never approve a payment over €400 for the flat; ask my sister first",
        "Never post my dad's medical appointments in the family chat",
        "不要替爸爸签字，哪怕是医院的单子",
    ],
)
def test_a_limit_on_the_assistants_acts_names_no_ones_value(line: str) -> None:
    # TAXONOMY.md: the money it must not move, the illness it must not post, whom to send the
    # user to are kinds of act (boundary), not a person's health, family or money.
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "Never pay anything to account GB29 NWBK 6016 1331 9268 19 again",
        "Never email anything to mum@example.com about the will",
        "不要替妈妈签字，她住在幸福路 18 号",
        "Never sign anything for my dad; his lawyer is at 14 Beckett Street",
        # A named illness is a fact about him, whatever the limit says.
        "Never post anything about my son's asthma in the school group",
    ],
)
def test_a_limit_carrying_a_value_stays_private(line: str) -> None:
    assert classify(line).audience == "private"


def test_a_common_word_after_a_kinship_word_is_no_name() -> None:
    # The given-name forms (小 or 阿 and one more, a doubled character) take in words of the
    # language ("女儿小学三年级", "接送：小区门口"), and jieba tags a medical term as a foreign
    # name ("爸爸：阿尔茨海默早期"): learnt, they would make every line of the home naming a
    # school, an estate or the illness private.
    lines = ["女儿小学三年级", "接送：小区门口 8:00", "爸爸：阿尔茨海默早期"]
    assert kin.names(lines) == frozenset()
    assert kin.names(["女儿朵朵", "儿子乐乐今年5岁", "女儿小葵", "儿子小宇"]) == {
        "朵朵", "乐乐", "小葵", "小宇",
    }  # fmt: skip


def test_a_day_a_month_or_a_holiday_after_a_kinship_word_is_no_name() -> None:
    # "Call dad Monday": learnt, the day would make every line of the home naming it private.
    lines = [
        "Call dad Monday about the boiler",
        "Visit mum Sunday afternoon",
        "Dad Christmas dinner",
    ]
    assert kin.names([*lines, "My son Year 4 teacher is Ms Reed", "mother December trip"]) == set()
    assert kin.names(["Grandma Jan visits", "Call dad Monday, son Theo too"]) == {"Jan", "Theo"}
