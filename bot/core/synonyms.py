"""Words people use for the same thing, across languages and spellings, for `/errfix WORDS` (pure).

A record says "CUDA out of memory"; people type `显存不足`, `OOM`, `VRAM full`, `memoria
insuficiente`. Each group below is one concept; a query that holds one member is also searched
for the others (`expansions`). Groups are technical vocabulary, not sentences: the record's own
`keywords` / `keywords_zh` carry the phrasing of each error, these only bridge the words.
English members are matched as whole words (in order), CJK ones as substrings (Chinese has no
spaces). Members are lower case.
"""

from __future__ import annotations

import re

from bot.core.cjk import cjk_split, has_cjk

GROUPS: tuple[tuple[str, ...], ...] = (
    # memory
    ("out of memory", "oom", "内存不足", "显存不足", "爆显存", "显存溢出", "内存溢出", "メモリ不足", "메모리 부족"),
    ("gpu memory", "vram", "显存", "ビデオメモリ"),
    ("memory", "ram", "内存", "メモリ", "메모리", "memoria", "memória", "mémoire"),
    ("gpu", "显卡", "グラボ", "그래픽카드"),
    ("multi gpu", "multiple gpus", "多卡", "多gpu", "多显卡"),
    ("distributed", "分布式"),
    ("driver", "驱动", "ドライバ", "드라이버"),
    # time and state
    ("timeout", "timed out", "超时", "タイムアウト", "시간 초과"),
    ("crash", "crashed", "died", "dies", "dead", "崩溃", "挂了", "挂掉", "クラッシュ"),
    ("hang", "hangs", "stuck", "freeze", "卡住", "卡死", "フリーズ"),
    ("restart", "restarting", "重启", "再起動"),
    # access
    (
        "permission denied",
        "权限不足",
        "没有权限",
        "拒绝访问",
        "権限がありません",
        "권한 거부",
        "acceso denegado",
        "permiso denegado",
        "permissão negada",
        "acesso negado",
        "accès refusé",
    ),
    ("permission", "权限", "権限", "권한", "permiso", "permissão"),
    ("denied", "rejected", "refused", "拒绝", "被拒", "拒否", "거부", "rechazado", "recusado"),
    ("password", "密码", "パスワード", "비밀번호", "contraseña", "senha"),
    ("authentication", "auth", "认证", "鉴权", "認証", "인증", "autenticación", "autenticação"),
    ("publickey", "public key", "ssh key", "公钥", "密钥", "公開鍵"),
    ("certificate", "cert", "ssl", "证书", "証明書", "인증서", "certificado"),
    ("proxy", "代理", "プロキシ", "프록시"),
    ("offline", "离线", "オフライン", "오프라인"),
    ("network", "网络", "ネットワーク", "네트워크"),
    ("connect", "connection", "连接", "连不上", "接続", "연결", "conexión", "conexão", "conectar"),
    # finding things
    (
        "not found",
        "cannot find",
        "can t find",
        "could not find",
        "missing",
        "找不到",
        "未找到",
        "不存在",
        "見つかりません",
        "見つからない",
        "찾을 수 없",
        "no encontrado",
        "não encontrado",
        "introuvable",
    ),
    ("no such file", "没有那个文件", "文件不存在"),
    (
        "install",
        "installed",
        "installation",
        "安装",
        "装不上",
        "インストール",
        "설치",
        "instalar",
        "installer",
        "instalación",
        "instalação",
    ),
    ("download", "下载", "ダウンロード", "다운로드", "descargar", "baixar"),
    ("upload", "上传", "アップロード", "업로드"),
    ("import", "导入", "インポート", "임포트"),
    ("module", "模块", "モジュール", "모듈", "módulo"),
    ("package", "pkg", "パッケージ", "패키지", "paquete", "pacote"),
    ("version", "版本", "バージョン", "버전", "versión", "versão"),
    ("mismatch", "incompatible", "not compatible", "不匹配", "不兼容", "不一致", "互換性", "호환"),
    ("environment", "env", "环境", "環境", "환경", "entorno", "ambiente"),
    ("activate", "activation", "激活", "アクティベート", "활성화", "activar", "ativar"),
    ("command", "命令", "コマンド", "명령"),
    ("path", "路径", "パス", "경로", "ruta", "caminho"),
    ("file", "文件", "ファイル", "파일", "archivo", "arquivo", "fichier"),
    ("directory", "dir", "folder", "目录", "文件夹", "ディレクトリ", "フォルダ", "디렉토리", "폴더", "carpeta"),
    (
        "too large",
        "too big",
        "太大",
        "过大",
        "超过限制",
        "大きすぎ",
        "너무 큽",
        "muy grande",
        "muito grande",
        "demasiado grande",
        "trop gros",
        "trop volumineux",
    ),
    ("disk", "磁盘", "硬盘", "ディスク", "디스크", "disco"),
    ("no space", "space left", "空间不足", "磁盘满", "容量不足", "공간 부족", "sin espacio", "sem espaço"),
    # ML words
    ("kernel", "内核", "カーネル", "커널", "núcleo"),
    ("notebook", "笔记本", "ノートブック", "노트북"),
    ("tensor", "张量", "テンソル", "텐서"),
    ("device", "设备", "デバイス", "디바이스", "장치", "dispositivo"),
    ("model", "模型", "モデル", "모델", "modelo", "modèle"),
    ("weights", "state dict", "checkpoint", "权重", "参数文件", "重み", "가중치", "pesos"),
    ("load", "loading", "加载", "载入", "読み込み", "ロード", "로드", "cargar", "carregar", "charger"),
    ("pretrained", "预训练", "事前学習", "사전학습"),
    ("training", "train", "训练", "学習", "학습", "entrenamiento", "treinamento"),
    ("shape", "形状", "シェイプ", "형상"),
    ("dimension", "dimensions", "dim", "维度", "次元", "차원", "dimensión", "dimensão"),
    ("gradient", "grad", "梯度", "勾配", "기울기"),
    ("loss", "损失", "损失函数", "損失"),
    ("nan", "非数", "数值溢出"),
    ("dtype", "data type", "数据类型", "データ型"),
    ("index", "索引", "下标", "インデックス", "인덱스", "índice"),
    ("column", "列名", "カラム", "컬럼", "columna", "coluna"),
    ("dataframe", "数据框", "データフレーム", "데이터프레임"),
    ("array", "数组", "配列", "배열", "arreglo"),
    ("encoding", "decode", "codec", "编码", "解码", "乱码", "文字化け", "인코딩", "codificación", "codificação"),
    ("tokenizer", "分词器", "トークナイザ", "토크나이저"),
    ("deprecated", "removed", "弃用", "已移除", "废弃", "非推奨", "삭제"),
    # git, docker, pip
    ("repository", "repo", "仓库", "リポジトリ", "저장소", "repositorio", "repositório"),
    ("branch", "分支", "ブランチ", "브랜치", "rama", "ramo"),
    ("merge", "合并", "マージ", "병합", "머지", "fusionar", "mesclar"),
    ("diverged", "divergent", "分叉", "分歧"),
    ("rebase", "变基", "リベース", "리베이스"),
    ("clone", "克隆", "クローン", "클론", "clonar"),
    ("push", "推送", "プッシュ", "푸시", "empujar"),
    ("pull", "拉取"),
    ("commit", "提交", "コミット", "커밋"),
    ("history", "histories", "历史", "履歴", "히스토리", "historial", "histórico"),
    ("conflict", "冲突", "競合", "コンフリクト", "충돌", "conflicto", "conflito"),
    ("overwritten", "overwrite", "覆盖", "上書き", "덮어쓰"),
    ("container", "容器", "コンテナ", "컨테이너", "contenedor", "contêiner"),
    ("image", "镜像", "イメージ", "이미지", "imagen", "imagem"),
    ("port", "端口", "ポート", "포트", "puerto", "porta"),
    ("in use", "already allocated", "already in use", "被占用", "占用", "使用中", "사용 중"),
    ("daemon", "守护进程", "デーモン", "데몬"),
    ("dependency", "dependencies", "依赖", "依存", "의존성", "dependencia", "dependência"),
    ("build", "编译", "构建", "ビルド", "빌드", "compilar"),
    ("compiler", "编译器", "コンパイラ", "컴파일러"),
    ("wheel", "whl"),
)

# members in the languages records are not written in: they find a group, they are never searched
FOREIGN = frozenset(
    """memoria memória mémoire permiso permissão rechazado recusado contraseña senha autenticación
    autenticação certificado conexión conexão conectar introuvable instalar installer descargar
    baixar módulo paquete pacote versión versão entorno ambiente activar ativar ruta caminho archivo
    arquivo fichier carpeta disco núcleo dispositivo modelo modèle pesos cargar carregar charger
    entrenamiento treinamento dimensión dimensão índice columna coluna arreglo codificación
    codificação repositorio repositório rama ramo fusionar mesclar empujar historial histórico
    conflicto conflito contenedor contêiner imagen imagem puerto porta dependencia dependência
    compilar instalación instalação""".split()  # noqa: SIM905
) | {
    "no encontrado",
    "não encontrado",
    "muy grande",
    "muito grande",
    "sin espacio",
    "sem espaço",
    "acceso denegado",
    "permiso denegado",
    "permissão negada",
    "acesso negado",
    "accès refusé",
    "demasiado grande",
    "trop gros",
    "trop volumineux",
    "clonar",
}
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_WORDS = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    """Lower-case words, a CJK run apart from the letters around it (`memory的情况` is two)."""
    return _WORDS.findall(cjk_split(text.lower()))


def searched(member: str) -> bool:
    """Whether a member is looked for in records (English or Chinese), or only finds its group."""
    return member not in FOREIGN and not _KANA_HANGUL.search(member)


def _index(
    groups: tuple[tuple[str, ...], ...],
) -> tuple[dict[str, list[tuple[tuple[str, ...], int]]], list[tuple[str, int]]]:
    """First word of each English member -> (its words, group), and the CJK members with their group."""
    by_first: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    cjk: list[tuple[str, int]] = []
    for g, members in enumerate(groups):
        for m in members:
            if has_cjk(m):
                cjk.append((m.replace(" ", ""), g))
            else:
                words = tuple(_words(m))
                by_first.setdefault(words[0], []).append((words, g))
    return by_first, cjk


_BY_FIRST, _CJK_MEMBERS = _index(GROUPS)


def groups_in(text: str) -> list[int]:
    """The groups one of whose members `text` holds, in the order first met."""
    found: dict[int, None] = {}
    words = _words(text)
    for k, w in enumerate(words):
        for seq, g in _BY_FIRST.get(w, ()):
            if tuple(words[k : k + len(seq)]) == seq:
                found.setdefault(g)
    squeezed = "".join(text.lower().split())
    for chars, g in _CJK_MEMBERS:
        if chars in squeezed:
            found.setdefault(g)
    return list(found)


def expansions(text: str) -> list[str]:
    """The other members of every group `text` names: the extra words to search for."""
    spaced = " " + " ".join(_words(text)) + " "
    squeezed = "".join(text.lower().split())
    out: dict[str, None] = {}
    for g in groups_in(text):
        for m in GROUPS[g]:
            present = m.replace(" ", "") in squeezed if has_cjk(m) else f" {' '.join(_words(m))} " in spaced
            if searched(m) and not present:
                out.setdefault(m)
    return list(out)
