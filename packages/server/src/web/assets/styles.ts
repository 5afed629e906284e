/** The dashboard's one stylesheet. Light and dark follow prefers-color-scheme; no inline styles (CSP). */
export const STYLES = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--accent:#0b62d6;
--pass:#1a7f37;--fail:#cf222e;--flaky:#9a6700;--skip:#6e7781;--run:#0969da;--focus:#0b62d6}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;--accent:#4493f8;
--pass:#3fb950;--fail:#f85149;--flaky:#d29922;--skip:#9198a1;--run:#4493f8;--focus:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-word;max-height:32rem}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--panel)}
header.top .brand{font-weight:700;color:var(--fg);text-decoration:none;margin-right:.5rem}
header.top nav{display:flex;gap:.75rem;flex-wrap:wrap}
header.top nav a{text-decoration:none;color:var(--fg);padding:.25rem .4rem;border-radius:6px}
header.top nav a[aria-current=page]{background:var(--bg);border:1px solid var(--line)}
header.top .spacer{flex:1}
header.top .header-search input{width:13rem;max-width:40vw}
header.top form{display:flex;gap:.35rem;align-items:center;margin:0}
main{padding:1rem;max-width:90rem;margin:0 auto}
h1{font-size:1.4rem;margin:.25rem 0 .75rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}h3{font-size:1rem;margin:1rem 0 .25rem}
.muted{color:var(--muted)}.small{font-size:12px}
input,select,button,textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.3rem .5rem}
button,.button{cursor:pointer;background:var(--panel);text-decoration:none;color:var(--fg);display:inline-block}
button.primary,a.button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
a.button{border:1px solid var(--line);border-radius:6px;padding:.3rem .5rem}
button.danger{color:var(--fail)}
label{display:inline-flex;flex-direction:column;gap:.15rem;font-size:12px;color:var(--muted)}
label>input,label>select{font-size:14px;color:var(--fg)}
ol.search-hits{list-style:none;padding:0;margin:0 0 1rem}ol.search-hits li{padding:.6rem 0;border-bottom:1px solid var(--line)}pre.snippet{white-space:pre-wrap;word-break:break-word;margin:.35rem 0 0;font-size:.85rem}pre.snippet mark{background:#fde68a;color:#1f2937;border-radius:2px}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;margin:.5rem 0 1rem}
form.stack{display:flex;flex-direction:column;gap:.75rem;max-width:24rem}
form.stack label{font-size:14px;color:var(--fg)}
form.inline{display:inline}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;background:var(--panel)}
tr:last-child td{border-bottom:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.badge{display:inline-block;padding:0 .45rem;border-radius:999px;font-size:12px;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.s-passed{color:var(--pass)}.s-failed{color:var(--fail)}.s-flaky{color:var(--flaky)}.s-skipped,.s-cancelled,.s-timed_out{color:var(--skip)}.s-running{color:var(--run)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.5rem;margin:.5rem 0 1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;background:var(--panel)}
.card b{display:block;font-size:1.25rem}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
.meta dt{color:var(--muted)}.meta dd{margin:0;word-break:break-word}
.pager{display:flex;gap:.75rem;align-items:center;margin:.75rem 0}
.group{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.25rem .75rem}
.group summary{cursor:pointer;padding:.25rem 0}
.group ul{margin:.25rem 0 .5rem;padding-left:1.25rem}
.tree ul{list-style:none;padding-left:1rem;margin:0}
.tree li{padding:.1rem 0}
.tree .file{font-weight:600;margin-top:.5rem}
.tree .describe{color:var(--muted)}
.step-failed>span.title{color:var(--fail);font-weight:600}
.chart{width:100%;max-width:40rem;height:auto;color:var(--muted)}
.chart .rate{stroke:var(--pass);fill:none;stroke-width:2}.chart .dur{stroke:var(--accent);fill:none;stroke-width:1.5;stroke-dasharray:4 3}
.chart .axis{stroke:var(--line)}.chart text{fill:var(--muted);font-size:10px}
.chart .grid{stroke:var(--line);stroke-dasharray:2 3}.chart .rate-point{fill:var(--pass)}.chart .dur-bar{fill:var(--accent)}
.day-charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,26rem),1fr));gap:1rem}.day-charts figure{margin:0}.day-charts .chart{max-width:none}.day-charts .chart text{font-size:12px}
.spark{vertical-align:middle;color:var(--muted)}.spark .axis{stroke:var(--line)}
.strip{display:flex;gap:3px;flex-wrap:wrap;margin:.25rem 0}
.strip a{display:block;width:14px;height:22px;border-radius:3px;background:var(--skip)}
.strip a.s-passed{background:var(--pass)}.strip a.s-failed{background:var(--fail)}.strip a.s-flaky{background:var(--flaky)}
.strip a.current{outline:2px solid var(--fg);outline-offset:1px}
.bar{display:inline-block;vertical-align:middle}
.shots{display:flex;flex-wrap:wrap;gap:1rem}
.shots figure{margin:0;max-width:100%}
.shots img,.shots video{max-width:min(100%,28rem);height:auto;border:1px solid var(--line);border-radius:6px}
.notice{border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:6px;padding:.5rem .75rem;margin:.5rem 0;background:var(--panel)}
.notice.error{border-left-color:var(--fail)}
.secret{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.auth{max-width:24rem;margin:4rem auto;padding:0 1rem}
.auth h1{margin-bottom:1rem}
.row{display:flex;gap:1rem;flex-wrap:wrap;align-items:baseline}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip-link{position:absolute;left:-999px}.skip-link:focus{left:1rem;top:1rem;background:var(--bg);padding:.25rem .5rem;z-index:1}
.tabs{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid var(--line);margin:.5rem 0}
.tabs a{padding:.35rem .75rem;border:1px solid transparent;border-bottom:0;border-radius:6px 6px 0 0;text-decoration:none;font-weight:600}
.tabs a[aria-current=page]{border-color:var(--line);background:var(--panel);color:var(--fg)}
.err{border-left:3px solid var(--fail);padding-left:.75rem;margin:.75rem 0}
pre.snippet{padding:.5rem 0}
pre.snippet .line{display:block;padding:0 .75rem}
pre.snippet .hl{background:color-mix(in srgb,var(--fail) 14%,transparent);font-weight:600}
pre.snippet .caret{color:var(--fail)}
.ansi-red{color:var(--fail)}.ansi-green{color:var(--pass)}.ansi-yellow{color:var(--flaky)}.ansi-blue,.ansi-cyan{color:var(--accent)}.ansi-magenta{color:#a337c8}.ansi-dim,.ansi-black,.ansi-white{color:var(--muted)}.ansi-bold{font-weight:700}
.snapshot{margin:0 0 1.5rem}
[data-snapshot]:focus{outline:2px solid currentColor;outline-offset:4px}
.imgdiff{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;margin:.75rem 0}
.imgdiff h4{margin:.25rem 0 .5rem}
.imgdiff-images,.imgdiff-view{display:flex;flex-wrap:wrap;gap:1rem}
.imgdiff-images[hidden]{display:none}
.imgdiff figure{margin:0}
.imgdiff img{max-width:min(100%,40rem);height:auto;border:1px solid var(--line);border-radius:4px;display:block}
.imgdiff-modes{display:flex;flex-wrap:wrap;gap:.25rem;margin-bottom:.5rem}
.imgdiff-modes button[aria-pressed=true]{background:var(--fg);color:var(--bg);border-color:var(--fg)}
.imgdiff-view{flex-direction:column}
.imgdiff-slider{position:relative;display:inline-block;max-width:min(100%,40rem)}
.imgdiff-slider img{max-width:100%}
.imgdiff-slider .imgdiff-top{position:absolute;left:0;top:0;width:100%;height:100%}
.imgdiff-view input[type=range]{width:min(100%,40rem)}
.text-attachment{margin:.5rem 0}.text-attachment summary{cursor:pointer}
#prompt-text{max-height:16rem}
pre:focus-visible,.table-wrap:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
nav[aria-label=Settings] a{text-decoration:none;padding:.25rem .5rem;border-radius:6px}
nav[aria-label=Settings] a[aria-current=page]{color:var(--fg);font-weight:700;border:1px solid var(--line);background:var(--panel)}
.legend .key{font-size:14px}
@media (prefers-color-scheme:dark){button.primary{background:#1f6feb;border-color:#1f6feb}}
@media (max-width:600px){main{padding:.75rem}header.top{padding:.5rem}.hide-narrow{display:none}th,td{padding:.35rem .4rem}}
`;
