import { datasetRecord, type CorpusDocument } from './corpus-types';

/** Papers and health records of the built-in corpus (preprints, biomedical papers, trials). */
export const PAPER_DOCUMENTS: readonly CorpusDocument[] = [
  datasetRecord('svc/svc-arxiv', '2401.08821', {
    title: 'Retrieval-Augmented Generation for Large Language Models: A Survey',
    url: 'https://arxiv.org/abs/2401.08821',
    source_type: 'paper',
    publication_date: '2024-01-16',
    authors: ['Mei Lin', 'Jonas Berg', 'Priya Natarajan'],
    doi: '10.48550/arXiv.2401.08821',
    keywords: ['rag', 'llm', 'retrieval', 'ai'],
    content:
      'Large language models hallucinate and lack up-to-date knowledge. Retrieval-augmented generation (RAG) addresses both by retrieving documents at query time. We survey naive, advanced and modular RAG, compare retrieval, generation and augmentation techniques, and summarise evaluation benchmarks and open problems such as long-context retrieval.',
  }),
  datasetRecord('svc/svc-arxiv', '2408.13687', {
    title: 'Below-threshold quantum error correction with surface codes',
    url: 'https://arxiv.org/abs/2408.13687',
    source_type: 'paper',
    publication_date: '2024-08-24',
    authors: ['A. Okafor', 'L. Brandt', 'S. Ishikawa'],
    doi: '10.48550/arXiv.2408.13687',
    keywords: ['quantum computing', 'physics', 'qubits'],
    content:
      'We report surface-code memories operating below the error-correction threshold on a superconducting processor. Increasing the code distance from 5 to 7 suppresses the logical error rate by a factor of 2.1, and the logical qubit lifetime exceeds that of the best physical qubit.',
  }),
  datasetRecord('svc/svc-arxiv', '2403.03206', {
    title: 'Scaling Rectified Flow Transformers for High-Resolution Image Synthesis',
    url: 'https://arxiv.org/abs/2403.03206',
    source_type: 'paper',
    publication_date: '2024-03-05',
    authors: ['R. Keller', 'T. Dockhorn', 'M. Rossi'],
    doi: '10.48550/arXiv.2403.03206',
    keywords: ['diffusion models', 'image generation', 'machine learning'],
    content:
      'Diffusion models create data from noise by inverting a forward process. We study rectified flow formulations and a transformer architecture with separate weights for text and image tokens, and show predictable scaling of quality with model size for text-to-image synthesis.',
  }),
  datasetRecord('svc/svc-pubmed', '38321456', {
    title: 'Semaglutide and Cardiovascular Outcomes in Obesity without Diabetes',
    url: 'https://pubmed.ncbi.nlm.nih.gov/38321456/',
    source_type: 'paper',
    publication_date: '2023-12-14',
    authors: ['H. Lincoff', 'K. Brown-Frandsen', 'S. Kahn'],
    doi: '10.1056/NEJMoa2307563',
    keywords: ['glp-1', 'obesity', 'cardiology', 'medical', 'health'],
    content:
      'In patients with preexisting cardiovascular disease and overweight or obesity but without diabetes, weekly subcutaneous semaglutide at 2.4 mg was superior to placebo in reducing the incidence of death from cardiovascular causes, nonfatal myocardial infarction, or nonfatal stroke over a mean follow-up of 39.8 months.',
    fullText:
      'Methods: 17,604 patients aged 45 years or older were randomised. Results: the primary end point occurred in 6.5 percent of the semaglutide group and 8.0 percent of the placebo group (hazard ratio 0.80). Adverse events leading to discontinuation were more frequent with semaglutide, mostly gastrointestinal.',
  }),
  datasetRecord('svc/svc-pubmed', '37937612', {
    title: 'Exagamglogene Autotemcel for Severe Sickle Cell Disease',
    url: 'https://pubmed.ncbi.nlm.nih.gov/37937612/',
    source_type: 'paper',
    publication_date: '2024-04-24',
    authors: ['H. Frangoul', 'F. Locatelli', 'A. Sharma'],
    doi: '10.1056/NEJMoa2309676',
    keywords: ['crispr', 'gene editing', 'sickle cell', 'genomics', 'medical'],
    content:
      'Exagamglogene autotemcel is an autologous CD34+ cell therapy edited with CRISPR-Cas9 at the BCL11A erythroid enhancer. Of 30 patients with severe sickle cell disease followed for at least 16 months, 29 were free of vaso-occlusive crises for at least 12 consecutive months.',
    fullText:
      'Fetal hemoglobin levels rose early and were sustained. Safety was consistent with myeloablative busulfan conditioning and autologous transplantation; no cancers occurred.',
  }),
  datasetRecord('svc/svc-biorxiv', '2024.05.12.593512', {
    title: 'A single-cell atlas of the ageing human immune system',
    url: 'https://www.biorxiv.org/content/10.1101/2024.05.12.593512v1',
    source_type: 'paper',
    publication_date: '2024-05-14',
    authors: ['E. Novak', 'R. Haddad'],
    doi: '10.1101/2024.05.12.593512',
    keywords: ['single-cell', 'immunology', 'ageing', 'genomics'],
    content:
      'We profiled 1.2 million peripheral blood cells from 166 donors aged 20 to 90 with single-cell RNA sequencing. Ageing was associated with expansion of cytotoxic CD4 T cells and a shift of monocytes toward an inflammatory state, providing a reference atlas for immunosenescence.',
  }),
  datasetRecord('svc/svc-medrxiv', '2024.02.01.24302130', {
    title: 'Long COVID prevalence and recovery in a three-year population cohort',
    url: 'https://www.medrxiv.org/content/10.1101/2024.02.01.24302130v1',
    source_type: 'paper',
    publication_date: '2024-02-03',
    authors: ['C. Moreau', 'D. Feld', 'Y. Adeyemi'],
    doi: '10.1101/2024.02.01.24302130',
    keywords: ['post-covid', 'epidemiology', 'health'],
    content:
      'In a population cohort of 48,000 adults, 6.8 percent reported symptoms lasting more than three months after infection. Fatigue and cognitive complaints were most common. Two thirds of affected participants reported recovery within two years; vaccination before infection was associated with lower risk.',
  }),
  datasetRecord('svc/svc-chemrxiv', '2024-7x1kq', {
    title: 'Sulfide solid-state electrolytes with improved air stability for lithium metal batteries',
    url: 'https://chemrxiv.org/engage/chemrxiv/article-details/2024-7x1kq',
    source_type: 'paper',
    publication_date: '2024-06-20',
    authors: ['J. Park', 'M. Alvarez'],
    doi: '10.26434/chemrxiv-2024-7x1kq',
    keywords: ['batteries', 'chemistry', 'energy storage', 'lithium'],
    content:
      'Sulfide solid electrolytes offer high ionic conductivity but decompose in humid air. Oxygen substitution in an argyrodite framework reduced hydrogen sulfide release by 90 percent while keeping conductivity above 5 mS/cm, enabling stable cycling of lithium metal cells for 500 cycles.',
  }),
  datasetRecord('svc/svc-clinical-trials', 'NCT05556512', {
    title: 'A Study of Tirzepatide in Adults With Obesity and Heart Failure (SUMMIT)',
    url: 'https://clinicaltrials.gov/study/NCT05556512',
    source_type: 'clinical_trial',
    publication_date: '2024-11-16',
    keywords: ['glp-1', 'obesity', 'heart failure', 'trial', 'medical'],
    content:
      'Phase 3, randomised, double-blind, placebo-controlled trial of tirzepatide in 731 adults with heart failure with preserved ejection fraction and obesity. Primary outcomes: composite of cardiovascular death or worsening heart failure events, and change in the KCCQ clinical summary score at 52 weeks. Status: completed.',
  }),
  datasetRecord('svc/svc-open-targets', 'ENSG00000169174', {
    title: 'PCSK9 target profile',
    url: 'https://platform.opentargets.org/target/ENSG00000169174',
    source_type: 'dataset',
    publication_date: '2025-01-10',
    keywords: ['genomics', 'cholesterol', 'drug target', 'genetics'],
    content:
      'PCSK9 regulates LDL receptor degradation. Strong genetic evidence links loss-of-function variants to lower LDL cholesterol and reduced coronary artery disease risk. Approved drugs include monoclonal antibodies and an siRNA; base-editing approaches are in clinical trials.',
  }),
];
