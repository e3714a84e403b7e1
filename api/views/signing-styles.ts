/**
 * The one stylesheet of the signing page and the approval page, served same-origin at
 * /assets/signing-page.css (the pages' CSP allows no inline style). Colours meet WCAG AA
 * contrast: body text #1f2328 on white is 15.8:1, links #0a58ca 6.5:1, the buttons' white on
 * #0a58ca and #a4161a over 6:1, the redline's #055d20 on #e6ffec and #82071e on #ffebe9 over 7:1.
 */
export const SIGNING_PAGE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{font-size:100%;-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;line-height:1.55;color:#1f2328;background:#f3f4f6}
main{max-width:46rem;margin:0 auto;padding:1rem}
header,section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1rem 1.25rem;margin:0 0 1rem}
h1{font-size:1.5rem;margin:.25rem 0}
h2{font-size:1.2rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:0 0 .5rem;color:#57606a}
.from,.muted{color:#57606a;margin:0}
a{color:#0a58ca}
a:focus,button:focus,input:focus,textarea:focus{outline:3px solid #0a58ca;outline-offset:2px}
.pages{list-style:none;padding:0;margin:0 0 1rem;display:flex;flex-wrap:wrap;gap:.5rem}
.page{border-top:1px solid #d0d7de;padding:1rem 0}
.page p{margin:0 0 .75rem;white-space:pre-wrap;overflow-wrap:anywhere}
blockquote{margin:0 0 1rem;padding:.5rem 1rem;border-left:4px solid #d0d7de;white-space:pre-wrap}
.field{margin:0 0 1rem}
.check{display:flex;gap:.6rem;align-items:flex-start}
.check input{width:1.4rem;height:1.4rem;margin:.15rem 0 0;flex:none}
label{font-weight:600}
input[type=text],textarea{display:block;width:100%;font:inherit;padding:.6rem;border:1px solid #6e7781;border-radius:6px;margin-top:.3rem}
textarea{min-height:6rem}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.6rem 1.4rem;border:0;border-radius:6px;color:#fff;background:#0a58ca;cursor:pointer}
button.decline{background:#a4161a}
.error{color:#a4161a;font-weight:600}
.consent{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem}
details summary{cursor:pointer;color:#0a58ca;font-weight:600}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}
dl.facts dt{font-weight:600;color:#57606a}
dl.facts dd{margin:0;overflow-wrap:anywhere}
dl.facts + h3{margin-top:1rem}
table.terms{width:100%;border-collapse:collapse}
table.terms th,table.terms td{text-align:left;vertical-align:top;padding:.45rem .5rem;border-bottom:1px solid #d0d7de;overflow-wrap:break-word}
table.terms th[scope=col]{color:#57606a}
table.terms td.value{overflow-wrap:anywhere}
.differs{color:#a4161a;font-weight:600}
.redline{border-top:1px solid #d0d7de;padding-top:1rem}
.redline p{margin:0 0 .75rem;white-space:pre-wrap;overflow-wrap:anywhere}
ins{text-decoration:underline;background:#e6ffec;color:#055d20}
del{text-decoration:line-through;background:#ffebe9;color:#82071e}
p.insert{background:#e6ffec}
p.delete{background:#ffebe9}
ul.clauses{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem 1rem .75rem 2rem}
code{overflow-wrap:anywhere;font-size:.9em}
input.code{max-width:12rem;letter-spacing:.15em}
.actions{display:flex;flex-wrap:wrap;gap:.75rem}
@media (max-width:30rem){dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.6rem}}
`;
